import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiExtraModels,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { LIMITS } from '@ctxledger/contracts';
import { IdParamPipe } from '../http/id-param.pipe';
import { ApiTenant, Tenant } from '../http/tenant.decorator';
import { AppendMessagesPipe } from './append-messages.pipe';
import { AppendAcceptedDto, AppendMessageBatchDto, AppendMessageDto } from './dto/append-messages.dto';
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
      'Idempotency-Key header gives the messages without one the ids `<key>:<index>`, so a retried POST adds nothing.',
  })
  @ApiBody({
    schema: { oneOf: [{ $ref: getSchemaPath(AppendMessageDto) }, { $ref: getSchemaPath(AppendMessageBatchDto) }] },
  })
  // The name as the handler reads it (lower case): one header parameter in the document, and an optional one.
  @ApiHeader({ name: 'idempotency-key', required: false, description: 'Makes a retried request add nothing' })
  @ApiAcceptedResponse({ type: AppendAcceptedDto })
  @ApiBadRequestResponse({ description: 'A field is invalid; the message names it' })
  @ApiNotFoundResponse({ description: 'The session belongs to another tenant' })
  @ApiPayloadTooLargeResponse({ description: 'Over the body limit or over what one Kafka request carries' })
  @ApiServiceUnavailableResponse({ description: 'Kafka is unavailable; nothing was acknowledged' })
  append(
    @Tenant() tenant: string,
    @Param('sessionId', IdParamPipe) sessionId: string,
    @Body(AppendMessagesPipe) messages: AppendMessageDto[],
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<AppendAcceptedDto> {
    return this.commands.appendMessages(tenant, sessionId, messages, idempotencyKey || undefined);
  }
}
