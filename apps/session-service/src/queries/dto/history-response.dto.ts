import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class HistoryResponseDto {
  @ApiProperty() sessionId!: string;
  @ApiProperty({ enum: ['effective', 'full'] }) view!: string;
  @ApiProperty({ enum: ['openai', 'anthropic', 'generic'] }) format!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description:
      "The history in the format's wire shape, ready to send (anthropic: its `messages`; the system text is in `system`)",
  })
  messages!: unknown[];

  @ApiPropertyOptional({
    description: 'System text: the configured system prompt (and, for anthropic, system messages)',
  })
  system?: string;

  @ApiProperty({ description: 'Messages in this view' }) messageCount!: number;
  @ApiProperty({ description: 'Original messages of the session' }) originalMessageCount!: number;
  @ApiProperty({
    description: "Tokens of this history (system prompt and tool definitions are in the budget's fixed overhead)",
  })
  tokens!: number;
  @ApiProperty({ description: 'History budget in tokens (session configuration, or the `budget` override)' })
  budget!: number;
  @ApiProperty() usageRatio!: number;
  @ApiProperty({ description: 'tokens <= budget' }) fits!: boolean;
  @ApiPropertyOptional({ description: 'Why it does not fit' }) reason?: string;
  @ApiProperty({ description: 'The stored view was over the budget; the cheap stages were applied on read' })
  compactedOnRead!: boolean;
  @ApiProperty({ type: [String] }) onReadStages!: string[];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'integer' },
    description:
      'Present when the served history needed a tool-pair repair (a provider rejects a result without its call and a ' +
      'call without its result): orphanResultsRemoved, missingResultsSynthesized, pendingResultsSynthesized (provider ' +
      'formats: the final calls still waiting for a result), duplicateResultsRemoved, displacedResultsMoved, ' +
      'duplicateCallIdsRenamed',
  })
  toolPairRepair?: Record<string, number>;
  @ApiProperty() activeBlocks!: number;
  @ApiProperty({ description: 'Last session-stream offset projected (compare with a waitToken)' })
  projectedOffset!: string;
}
