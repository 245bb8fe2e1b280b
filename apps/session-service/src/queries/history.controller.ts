import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiGatewayTimeoutResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IdParamPipe } from '../http/id-param.pipe';
import { ApiTenant, Tenant } from '../http/tenant.decorator';
import { HistoryQueryDto } from './dto/history-query.dto';
import { HistoryResponseDto } from './dto/history-response.dto';
import { SessionQueriesService } from './session-queries.service';

@ApiTags('history')
@ApiTenant()
@Controller('v1/sessions/:sessionId/history')
export class HistoryController {
  constructor(private readonly queries: SessionQueriesService) {}

  @Get()
  @ApiOperation({
    summary: 'The history to send to the model',
    description:
      'The effective history (blocks overlaid) or the full one, rendered for a provider, with its tokens against the budget. ' +
      'Never silently over: when the stored view is over the budget (compaction still in flight) the cheap stages are applied ' +
      'on read (`compactedOnRead`); when it still cannot fit, `fits` is false and `reason` says why.',
  })
  @ApiOkResponse({ type: HistoryResponseDto })
  @ApiNotFoundResponse({ description: 'No such session for this tenant' })
  @ApiGatewayTimeoutResponse({ description: '`after` was not reached in time' })
  history(
    @Tenant() tenant: string,
    @Param('sessionId', IdParamPipe) sessionId: string,
    @Query() query: HistoryQueryDto,
  ): Promise<HistoryResponseDto> {
    return this.queries.history(tenant, sessionId, query);
  }
}
