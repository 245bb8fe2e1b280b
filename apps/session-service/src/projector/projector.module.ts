import { Module } from '@nestjs/common';
import { ReadModelModule } from '../read-models/read-model.module';
import { ProjectionHandler } from './projection.handler';
import { ProjectionMetrics } from './projection.metrics';
import { ProjectionProgress } from './projection-progress';
import { SessionProjectorService } from './session-projector.service';

/** Keeps the read model up to date from the session and block streams (Kafka handlers of the hybrid app). */
@Module({
  imports: [ReadModelModule],
  controllers: [ProjectionHandler],
  providers: [SessionProjectorService, ProjectionProgress, ProjectionMetrics],
  exports: [ProjectionProgress, ProjectionMetrics],
})
export class ProjectorModule {}
