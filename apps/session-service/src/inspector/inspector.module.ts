import { Module } from '@nestjs/common';
import { QueriesModule } from '../queries/queries.module';
import { ReadModelModule } from '../read-models/read-model.module';
import { HeldReadsOnShutdown } from './held-reads';
import { InspectorController, SessionListController } from './inspector.controller';
import { InspectorService } from './inspector.service';
import { UiAssetsServer } from './ui-assets';

/** The session inspector: the page at /ui and the read endpoints it uses beyond history, stats and blocks. */
@Module({
  imports: [ReadModelModule, QueriesModule],
  controllers: [SessionListController, InspectorController],
  providers: [InspectorService, UiAssetsServer, HeldReadsOnShutdown],
})
export class InspectorModule {}
