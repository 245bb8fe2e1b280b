import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
  ValidateBy,
  type ValidationArguments,
} from 'class-validator';
import { LIMITS } from '../limits';

export const ROLES = ['system', 'user', 'assistant', 'tool'] as const;

/** The property may only be set on messages of the given role. */
function OnlyForRole(role: (typeof ROLES)[number]): PropertyDecorator {
  return ValidateBy({
    name: 'onlyForRole',
    constraints: [role],
    validator: {
      validate: (_value: unknown, args?: ValidationArguments) => (args?.object as MessageDto).role === role,
      defaultMessage: () => `is only allowed on ${role} messages`,
    },
  });
}

export class ToolCallDto {
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

export class ImageRefDto {
  /** Decoded byte length of the image; only its size matters to the budget. */
  @IsInt()
  @Min(0)
  bytes!: number;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  mediaType?: string;
}

/**
 * One conversation message, provider-neutral (the transcript format of the data README).
 * Cross-field rules: tool calls only on assistant messages; a tool message names the call it answers.
 */
export class MessageDto {
  @IsIn(ROLES)
  role!: (typeof ROLES)[number];

  @IsString()
  @MaxLength(LIMITS.maxContentChars)
  content!: string;

  @IsOptional()
  @OnlyForRole('assistant')
  @ArrayMaxSize(LIMITS.maxToolCallsPerMessage)
  @ValidateNested({ each: true })
  @Type(() => ToolCallDto)
  toolCalls?: ToolCallDto[];

  @ValidateIf((m: MessageDto) => m.role === 'tool' || m.toolCallId !== undefined)
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
  @Type(() => ImageRefDto)
  images?: ImageRefDto[];
}
