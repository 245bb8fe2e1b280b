import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import {
  ID_PATTERN,
  LIMITS,
  ROLES,
  type ImageRef,
  type MessageAppendedData,
  type Role,
  type ToolCall,
} from '@ctxledger/contracts';
import { documentModel } from '../../http/api-model';

/*
 * The HTTP bodies of the `message.appended` contract, checked with class-validator as Nest users expect (400 with
 * `path: reason` per violation). The rules are the event schema's (libs/contracts/src/events/message.ts), restated
 * as decorators: dto-contract.spec.ts keeps the two in step (same properties, same required ones, same verdicts).
 */

/** The property may only be set on messages of the given role. */
function OnlyForRole(role: Role): PropertyDecorator {
  return ValidateBy({
    name: 'onlyForRole',
    constraints: [role],
    validator: {
      validate: (_value: unknown, args?: ValidationArguments) => (args?.object as { role?: unknown }).role === role,
      defaultMessage: () => `is only allowed on ${role} messages`,
    },
  });
}

export class ToolCallBody implements ToolCall {
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  id!: string;

  @IsString()
  @Length(1, LIMITS.maxNameLength)
  name!: string;

  /** The call's input as a JSON string (OpenAI wire style). */
  @IsString()
  @MaxLength(LIMITS.maxToolArgumentsChars)
  arguments!: string;
}
documentModel(ToolCallBody, {
  id: { description: 'Unique in the session; the tool message answering it names it in toolCallId' },
  name: { example: 'read_file' },
  arguments: { description: 'The call input as a JSON string', example: '{"path":"src/app.ts"}' },
});

export class ImageRefBody implements ImageRef {
  /** Decoded byte length of the image; only its size matters to the budget. */
  @IsInt()
  @Min(0)
  bytes!: number;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  mediaType?: string;
}
documentModel(ImageRefBody, {
  bytes: { description: 'Decoded size of the image (only its size counts)', minimum: 0 },
  mediaType: { required: false, example: 'image/png' },
});

/**
 * One message to append (the `message.appended` contract). Cross-field rules: tool calls only on assistant
 * messages; a tool message names the call it answers.
 */
export class AppendMessageDto implements MessageAppendedData {
  @IsIn(ROLES)
  role!: Role;

  @IsString()
  @MaxLength(LIMITS.maxContentChars)
  content!: string;

  @IsOptional()
  @OnlyForRole('assistant')
  @ArrayMaxSize(LIMITS.maxToolCallsPerMessage)
  @ValidateNested({ each: true })
  @Type(() => ToolCallBody)
  toolCalls?: ToolCallBody[];

  @ValidateIf((m: AppendMessageDto) => m.role === 'tool' || m.toolCallId !== undefined)
  @IsString({ message: 'is required on tool messages' })
  @Length(1, LIMITS.maxIdLength)
  toolCallId?: string;

  @IsOptional()
  @OnlyForRole('tool')
  @IsString()
  @MaxLength(LIMITS.maxNameLength)
  toolName?: string;

  @IsOptional()
  @IsBoolean()
  isError?: boolean;

  @IsOptional()
  @ArrayMaxSize(LIMITS.maxImagesPerMessage)
  @ValidateNested({ each: true })
  @Type(() => ImageRefBody)
  images?: ImageRefBody[];

  /** Makes the append idempotent: a second event with the same id in the session is ignored. */
  @IsOptional()
  @IsString()
  @Length(1, LIMITS.maxIdLength)
  @Matches(ID_PATTERN, { message: 'may contain only letters, digits and _:@-' })
  clientMessageId?: string;
}
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
