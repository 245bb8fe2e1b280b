import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IdParamPipe } from '../http/id-param.pipe';
import { ApiTenant, Tenant } from '../http/tenant.decorator';
import { AfterQueryDto } from './dto/history-query.dto';
import { SessionQueriesService } from './session-queries.service';

@ApiTags('sessions')
@ApiTenant()
@ApiNotFoundResponse({ description: 'No such session for this tenant' })
@Controller('v1/sessions/:sessionId')
export class SessionStatsController {
  constructor(private readonly queries: SessionQueriesService) {}

  @Get('stats')
  @ApiOperation({
    summary: 'Tokens (raw and effective), budget, usage ratio, messages, blocks, tokens saved per stage',
  })
  stats(@Tenant() tenant: string, @Param('sessionId', IdParamPipe) sessionId: string, @Query() query: AfterQueryDto) {
    return this.queries.stats(tenant, sessionId, query.after, query.waitMs);
  }

  @Get('blocks')
  @ApiOperation({ summary: 'The compaction blocks of the session, active and reverted, in creation order' })
  blocks(@Tenant() tenant: string, @Param('sessionId', IdParamPipe) sessionId: string, @Query() query: AfterQueryDto) {
    return this.queries.blocks(tenant, sessionId, query.after, query.waitMs);
  }
}
