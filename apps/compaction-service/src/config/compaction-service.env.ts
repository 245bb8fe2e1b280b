import { BaseServiceEnv } from '@ctxledger/platform';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

/** Environment of the compaction-service (validated at boot). */
export class CompactionServiceEnv extends BaseServiceEnv {
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT: number = 3001;

  /** Kafka consumer group; default `<TOPIC_PREFIX>.compaction`. Instances of one deployment share it. */
  @IsOptional()
  @IsString()
  @Matches(/^[a-zA-Z0-9._-]{1,200}$/)
  COMPACTION_GROUP_ID?: string;

  /** How long a summary may take before the session falls back to the cheap stages. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  SUMMARY_TIMEOUT_MS: number = 120_000;

  /** Partitions of the session stream this instance works on at once. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(64)
  PARTITIONS_CONCURRENTLY: number = 3;

  /**
   * Model summaries of the ranges the engine condenses deterministically (an agent's in-turn prefix, digests,
   * markers): the deterministic note serves at once, the model's summary supersedes it when it arrives.
   * `auto`: on when SUMMARIZER_PROVIDER names a model provider (not `offline`), the summarizer-service's setting,
   * which `npm start` gives every service. A session whose summarizer choice names a provider follows it, and a
   * session's own `policy.digestSummaries` wins over both.
   */
  @IsIn(['auto', 'on', 'off'])
  DIGEST_SUMMARIES: 'auto' | 'on' | 'off' = 'auto';

  /**
   * With digest summaries on, a note's model summary is asked once the session pauses: this long without a new
   * message after a compaction (the pause is written to the session stream; see SessionPauses). An agent that keeps
   * appending makes newer notes that absorb the older ones; asked at once, most answers would come back for notes
   * no longer shown. 0: ask at each compaction.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(600_000)
  DIGEST_SUMMARY_QUIET_MS: number = 2000;

  /** Read for DIGEST_SUMMARIES=auto only (the summarizer-service validates it). */
  @IsOptional()
  @IsString()
  SUMMARIZER_PROVIDER?: string;
}
