import { IsInt, IsOptional, IsString, Length, MaxLength, Min } from 'class-validator';
import { LIMITS } from '../limits';

/**
 * How much of a refused record's value the dead-letter event may keep: all of it, as long as the whole event fits in
 * one record (LIMITS.maxEventBytes). Only a value near that limit, or one that JSON escaping inflates, is cut.
 */
export const DEAD_LETTER_PAYLOAD_CHARS = LIMITS.maxEventBytes;

/** `event.dead-lettered`: a record no consumer could process, with the reason and where it came from. */
export class EventDeadLetteredData {
  @IsString()
  @Length(1, 300)
  sourceTopic!: string;

  @IsInt()
  @Min(0)
  partition!: number;

  @IsString()
  @Length(1, 30)
  offset!: string;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  key?: string;

  @IsString()
  @Length(1, 2000)
  reason!: string;

  /** Which consumer refused it. */
  @IsString()
  @Length(1, 200)
  consumer!: string;

  /** The record's value as text: whole, unless `payloadCutFromBytes` says it was cut to fit one record. */
  @IsString()
  @MaxLength(DEAD_LETTER_PAYLOAD_CHARS)
  payload!: string;

  /**
   * Present when `payload` is only the beginning of the value: the value's whole size in bytes. The whole record
   * stays at `sourceTopic`, `partition`, `offset` (topics keep everything).
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  payloadCutFromBytes?: number;
}
