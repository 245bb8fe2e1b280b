import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

const MESSAGE = {
  type: 'object',
  additionalProperties: true,
  description: 'A message in the transcript shape (role, content, toolCalls, toolCallId, toolName, isError)',
} as const;

export class SessionBlockCountsDto {
  @ApiProperty() total!: number;
  @ApiProperty() active!: number;
  @ApiProperty() reverted!: number;
  @ApiProperty({ description: 'Stored blocks whose messages are not all projected yet' }) pending!: number;
}

export class SessionSummaryDto {
  @ApiProperty() sessionId!: string;
  @ApiPropertyOptional() provider?: string;
  @ApiPropertyOptional() model?: string;
  @ApiProperty({ description: 'Original messages' }) messageCount!: number;
  @ApiPropertyOptional({ description: 'Tokens of every original message (absent while statsPending)' })
  rawTokens?: number;
  @ApiPropertyOptional({ description: 'Tokens of the effective history, blocks overlaid (absent while statsPending)' })
  effectiveTokens?: number;
  @ApiPropertyOptional() historyBudget?: number;
  @ApiPropertyOptional({ description: 'effectiveTokens / historyBudget (-1: no usable budget)' }) usageRatio?: number;
  @ApiPropertyOptional() fits?: boolean;
  @ApiPropertyOptional({ type: SessionBlockCountsDto }) blocks?: SessionBlockCountsDto;
  @ApiPropertyOptional({
    description:
      'The stats are being computed (a large session not read since the service started): listed again shortly, ' +
      'they are there. The token fields are absent meanwhile',
  })
  statsPending?: boolean;
  @ApiProperty({ description: 'Time of the first event' }) createdAt!: string;
  @ApiProperty({ description: 'Time of the last event (last activity)' }) updatedAt!: string;
}

export class SessionListDto {
  @ApiProperty({ type: [SessionSummaryDto], description: 'Most recent activity first' })
  sessions!: SessionSummaryDto[];
  @ApiProperty({ description: "The tenant's sessions matching `q`" }) total!: number;
  @ApiProperty() offset!: number;
  @ApiProperty() limit!: number;
}

export class OriginalMessageDto {
  @ApiProperty() position!: number;
  @ApiProperty(MESSAGE) message!: Record<string, unknown>;
  @ApiProperty({ description: "Tokens under the session's provider" }) tokens!: number;
}

export class MessagePageDto {
  @ApiProperty() sessionId!: string;
  @ApiProperty({ description: 'Original messages of the session' }) total!: number;
  @ApiProperty() offset!: number;
  @ApiProperty() limit!: number;
  @ApiProperty({ type: [OriginalMessageDto] }) messages!: OriginalMessageDto[];
}

export class EffectiveEntryDto {
  @ApiProperty({ description: 'Index in the effective history' }) index!: number;
  @ApiProperty({ description: 'First original position the entry stands for' }) from!: number;
  @ApiProperty({ description: 'Last original position the entry stands for (= from for an original)' }) to!: number;
  @ApiPropertyOptional({ description: 'The block whose replacement this is (absent: an original message)' })
  blockId?: string;
  @ApiPropertyOptional() stage?: string;
  @ApiProperty() tokens!: number;
  @ApiProperty(MESSAGE) message!: Record<string, unknown>;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The message alone in the format's wire shape (Anthropic merges neighbours of one role when sent)",
  })
  wire!: Record<string, unknown>;
}

export class EffectivePageDto {
  @ApiProperty() sessionId!: string;
  @ApiProperty({ enum: ['openai', 'anthropic', 'generic'] }) format!: string;
  @ApiProperty({ description: 'Entries of the effective history' }) total!: number;
  @ApiProperty() offset!: number;
  @ApiProperty() limit!: number;
  @ApiProperty({ description: 'Messages the provider receives in this format' }) wireMessageCount!: number;
  @ApiProperty({ description: 'Tokens of the whole effective history' }) tokens!: number;
  @ApiProperty() budget!: number;
  @ApiProperty({
    description: 'tokens <= budget (when not, GET …/history compacts on read with the cheap stages)',
  })
  fits!: boolean;
  @ApiProperty({ type: [EffectiveEntryDto] }) entries!: EffectiveEntryDto[];
}

export class BlockEditDetailDto {
  @ApiProperty() from!: number;
  @ApiProperty() to!: number;
  @ApiProperty() originalMessages!: number;
  @ApiProperty({ description: 'Tokens of the originals the edit hides' }) originalTokens!: number;
  @ApiProperty({ type: 'array', items: MESSAGE, description: 'What the model sees instead (may be empty)' })
  replacement!: Record<string, unknown>[];
  @ApiProperty() replacementTokens!: number;
}

export class BlockDetailDto {
  @ApiProperty() sessionId!: string;
  @ApiProperty() id!: string;
  @ApiProperty() stage!: string;
  @ApiProperty({ type: 'object', properties: { from: { type: 'number' }, to: { type: 'number' } } })
  range!: { from: number; to: number };
  @ApiProperty({ description: 'Tokens of what the edits replaced in the effective view of their time' })
  tokensBefore!: number;
  @ApiProperty() tokensAfter!: number;
  @ApiProperty() tokensSaved!: number;
  @ApiProperty({ description: 'The last original position the decision saw' }) basedOnPosition!: number;
  @ApiProperty() engineVersion!: string;
  @ApiProperty() active!: boolean;
  @ApiProperty({ description: 'Every message the block covers is projected' }) applicable!: boolean;
  @ApiProperty() createdAt!: string;
  @ApiPropertyOptional() revertedAt?: string;
  @ApiProperty({ type: [BlockEditDetailDto] }) edits!: BlockEditDetailDto[];
}

export class TokenMarkerDto {
  @ApiProperty() blockId!: string;
  @ApiProperty() stage!: string;
  @ApiProperty({ description: 'The position from which the block is part of the history' }) position!: number;
  @ApiProperty() tokensSaved!: number;
  @ApiProperty() active!: boolean;
}

export class TokenSeriesDto {
  @ApiProperty() sessionId!: string;
  @ApiProperty({ description: 'Original messages (the length of each series)' }) positions!: number;
  @ApiProperty({ type: [Number], description: 'raw[p]: tokens of messages 0..p in full' }) raw!: number[];
  @ApiProperty({
    type: [Number],
    description: 'effective[p]: the same with the blocks made by then that are active now overlaid',
  })
  effective!: number[];
  @ApiProperty() budget!: number;
  @ApiProperty({ description: 'Compaction starts above this' }) threshold!: number;
  @ApiProperty({ type: [TokenMarkerDto], description: 'Every block (active and reverted) at its position' })
  markers!: TokenMarkerDto[];
}
