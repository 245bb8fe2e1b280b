import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiNotFoundResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { IdParamPipe } from '../http/id-param.pipe';
import { ApiTenant, Tenant } from '../http/tenant.decorator';
import { AcceptedDto, OutcomeUnknownDto, OverflowAcceptedDto } from './dto/append-messages.dto';
import { OverflowReportDto } from './dto/overflow-report.dto';
import { SessionCommandsService } from './session-commands.service';

/** Requests to the compaction service: manual compaction, overflow report, revert of a block. */
@ApiTags('compaction')
@ApiTenant()
@ApiNotFoundResponse({ description: 'No such session (or block) for this tenant' })
@ApiServiceUnavailableResponse({
  type: OutcomeUnknownDto,
  description:
    'Kafka did not acknowledge the request (`outcome: "unknown"`): it may have been published or not. A revert ' +
    'retried has the effect of one; a compaction request retried may be handled twice',
  headers: { 'Retry-After': { description: 'Seconds to wait before the retry', schema: { type: 'integer' } } },
})
@Controller('v1/sessions/:sessionId')
export class CompactionCommandsController {
  constructor(private readonly commands: SessionCommandsService) {}

  @Post('compactions')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Ask for a compaction now',
    description: "Publishes `compaction.requested {trigger: 'manual'}`.",
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  compact(@Tenant() tenant: string, @Param('sessionId', IdParamPipe) sessionId: string): Promise<AcceptedDto> {
    return this.commands.requestCompaction(tenant, sessionId);
  }

  @Post('overflow')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Report that the provider rejected the request as too long',
    description:
      "The error is classified; an overflow publishes `compaction.requested {trigger: 'overflow'}` (emergency compaction). " +
      'Any other error (rate limit, auth, …) is 422: compacting would not help.',
  })
  @ApiAcceptedResponse({ type: OverflowAcceptedDto })
  @ApiUnsupportedMediaTypeResponse({ description: 'The body is not sent as application/json' })
  @ApiUnprocessableEntityResponse({ description: 'Not an overflow; the answer says what it is' })
  overflow(
    @Tenant() tenant: string,
    @Param('sessionId', IdParamPipe) sessionId: string,
    @Body() report: OverflowReportDto,
  ): Promise<OverflowAcceptedDto> {
    return this.commands.reportOverflow(tenant, sessionId, report.errorText);
  }

  @Post('blocks/:blockId/revert')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Revert a block (show again what it hid)',
    description: 'Publishes `block-revert.requested`.',
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  revert(
    @Tenant() tenant: string,
    @Param('sessionId', IdParamPipe) sessionId: string,
    @Param('blockId', IdParamPipe) blockId: string,
  ): Promise<AcceptedDto & { alreadyReverted: boolean }> {
    return this.commands.requestRevert(tenant, sessionId, blockId);
  }
}
