import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { LIMITS } from '@ctxledger/contracts';
import { IdParamPipe } from '../http/id-param.pipe';
import { ApiTenant, Tenant } from '../http/tenant.decorator';
import { AppendMessagesPipe } from './append-messages.pipe';
import {
  AppendAcceptedDto,
  AppendMessageBatchDto,
  AppendMessageDto,
  IdempotencyConflictDto,
  OutcomeUnknownDto,
} from './dto/append-messages.dto';
import { SessionCommandsService } from './session-commands.service';

@ApiTags('messages')
@ApiTenant()
@ApiExtraModels(AppendMessageDto, AppendMessageBatchDto)
@Controller('v1/sessions/:sessionId/messages')
export class MessagesController {
  constructor(private readonly commands: SessionCommandsService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Append one message or a batch',
    description:
      `One message, or \`{ "messages": [...] }\` with at most ${LIMITS.maxBatchMessages}. All messages of a request go to Kafka in ` +
      'one request (all or nothing). A message whose clientMessageId was already appended to the session is ignored; an ' +
      'Idempotency-Key header gives the messages without one the ids `<key>:<index>`, so a retried POST adds nothing.\n\n' +
      '**Retries.** A request is taken under a key: its Idempotency-Key, or, without one, a key derived from its ' +
      'clientMessageIds when every message has one (`cmid-…`); the answer names it (`idempotencyKey`). The key is bound ' +
      'to the first body it came with, in this session: the same body again is a replay (202, nothing appended twice); ' +
      'another body is **409** naming the key. When Kafka does not acknowledge the write in time the answer is **503** ' +
      'with `outcome: "unknown"` and `Retry-After`: the messages may have been appended or not. Retry the same body ' +
      'with the same key (after Retry-After) until 202 — every message is then stored exactly once. A request with ' +
      'neither key has `idempotencyKey: null`: retrying it may append its messages twice.\n\n' +
      'The body must be `application/json` (**415** otherwise) and valid UTF-8 (**400** naming the field otherwise: ' +
      'nothing is stored altered).',
  })
  @ApiBody({
    schema: { oneOf: [{ $ref: getSchemaPath(AppendMessageDto) }, { $ref: getSchemaPath(AppendMessageBatchDto) }] },
  })
  // The name as the handler reads it (lower case): one header parameter in the document, and an optional one.
  @ApiHeader({
    name: 'idempotency-key',
    required: false,
    description:
      'Makes a retried request add nothing. Bound to the first body sent with it in the session: another body is 409',
  })
  @ApiAcceptedResponse({ type: AppendAcceptedDto })
  @ApiBadRequestResponse({ description: 'A field is invalid, or the body is not valid UTF-8; the message names where' })
  @ApiNotFoundResponse({ description: 'The session belongs to another tenant' })
  @ApiConflictResponse({
    type: IdempotencyConflictDto,
    description: 'The Idempotency-Key (or the clientMessageIds) was already used in this session with another body',
  })
  @ApiPayloadTooLargeResponse({ description: 'Over the body limit or over what one Kafka request carries' })
  @ApiUnsupportedMediaTypeResponse({ description: 'The body is not sent as application/json' })
  @ApiServiceUnavailableResponse({
    type: OutcomeUnknownDto,
    description:
      'Kafka did not acknowledge the write (`outcome: "unknown"`): it may have been appended or not. Retry the same ' +
      'body with the same Idempotency-Key (the answer names it) after Retry-After; a retry adds nothing twice. ' +
      '(MongoDB unavailable is also 503, without `outcome`: nothing was sent.)',
    headers: { 'Retry-After': { description: 'Seconds to wait before the retry', schema: { type: 'integer' } } },
  })
  append(
    @Tenant() tenant: string,
    @Param('sessionId', IdParamPipe) sessionId: string,
    @Body(AppendMessagesPipe) messages: AppendMessageDto[],
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<AppendAcceptedDto> {
    return this.commands.appendMessages(tenant, sessionId, messages, idempotencyKey || undefined);
  }
}
