import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, ValidateNested } from 'class-validator';
import { ImageRefDto, LIMITS, MessageAppendedData, ROLES, ToolCallDto } from '@ctxledger/contracts';
import { documentModel } from '../../http/api-model';

export class ToolCallBody extends ToolCallDto {}
documentModel(ToolCallBody, {
  id: { description: 'Unique in the session; the tool message answering it names it in toolCallId' },
  name: { example: 'read_file' },
  arguments: { description: 'The call input as a JSON string', example: '{"path":"src/app.ts"}' },
});

export class ImageRefBody extends ImageRefDto {}
documentModel(ImageRefBody, {
  bytes: { description: 'Decoded size of the image (only its size counts)', minimum: 0 },
  mediaType: { required: false, example: 'image/png' },
});

/** One message to append (the `message.appended` contract). */
export class AppendMessageDto extends MessageAppendedData {}
documentModel(AppendMessageDto, {
  role: { enum: ROLES },
  content: { maxLength: LIMITS.maxContentChars },
  toolCalls: { required: false, type: () => [ToolCallBody], description: 'Assistant messages only' },
  toolCallId: { required: false, description: 'Required on tool messages: the call this result answers' },
  toolName: { required: false, description: 'Tool messages only' },
  isError: { required: false },
  images: { required: false, type: () => [ImageRefBody] },
  clientMessageId: {
    required: false,
    description:
      'Idempotency key of the message: a second message with the same id in the session is ignored. When every ' +
      'message of a request has one and no Idempotency-Key is sent, the request key is derived from them',
    pattern: '^[A-Za-z0-9_:@-]+$',
  },
});

/** Several messages appended together: one Kafka request, all or nothing. */
export class AppendMessageBatchDto {
  @ApiProperty({ type: () => [AppendMessageDto], minItems: 1, maxItems: LIMITS.maxBatchMessages })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.maxBatchMessages)
  @ValidateNested({ each: true })
  @Type(() => AppendMessageDto)
  messages!: AppendMessageDto[];
}

/** 202: where the events were appended, and the token to read them back with `after`. */
export class AcceptedDto {
  @ApiProperty()
  sessionId!: string;

  @ApiProperty({ description: 'Session-stream partition of the session' })
  partition!: number;

  @ApiProperty({ type: [String], description: 'Kafka offset of each event, in order' })
  offsets!: string[];

  @ApiProperty({ description: 'Pass as `after` to GET …/history to wait until the read model shows these writes' })
  waitToken!: string;
}

export class AppendAcceptedDto extends AcceptedDto {
  @ApiProperty({ description: 'Messages in the request' })
  accepted!: number;

  @ApiProperty({
    type: [String],
    description: 'The clientMessageId of each message (derived from Idempotency-Key when not given)',
  })
  clientMessageIds!: (string | null)[];

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The key the request was taken under: its Idempotency-Key, or `cmid-…` derived from the clientMessageIds ' +
      'when every message has one; null when it had neither (a retry of it may append its messages twice)',
  })
  idempotencyKey!: string | null;
}

/**
 * 503 of a write Kafka did not acknowledge: it may have been appended or not. Retrying the same body under the
 * same key is safe (idempotencyKey; for a request without one, a retry may append it twice).
 */
export class OutcomeUnknownDto {
  @ApiProperty({ example: 503 })
  statusCode!: number;

  @ApiProperty({ example: 'Service Unavailable' })
  error!: string;

  @ApiProperty({ enum: ['unknown'], description: 'The write may have been appended or not' })
  outcome!: 'unknown';

  @ApiProperty({ description: 'What happened and how to retry safely' })
  message!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Retry the same body with this Idempotency-Key (null: the request had no key)',
  })
  idempotencyKey!: string | null;

  @ApiProperty({ description: 'Also sent as the Retry-After header' })
  retryAfterSeconds!: number;
}

/** 409: the Idempotency-Key (or the clientMessageIds) was first used with another body. */
export class IdempotencyConflictDto {
  @ApiProperty({ example: 409 })
  statusCode!: number;

  @ApiProperty({ example: 'Conflict' })
  error!: string;

  @ApiProperty({ description: 'Names the key, the session and the first use' })
  message!: string;

  @ApiProperty()
  idempotencyKey!: string;
}

export class OverflowAcceptedDto extends AcceptedDto {
  @ApiProperty({ description: 'What the provider error is: overflow' })
  kind!: string;

  @ApiPropertyOptional()
  provider?: string;

  @ApiPropertyOptional({ description: 'The prompt size the provider counted' })
  actualTokens?: number;

  @ApiPropertyOptional({ description: 'The context limit the provider stated' })
  limitTokens?: number;
}
