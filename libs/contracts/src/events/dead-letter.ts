import { IsInt, IsOptional, IsString, Length, MaxLength, Min } from 'class-validator';

/** How much of a refused record's value the dead-letter event keeps. */
export const DEAD_LETTER_PAYLOAD_CHARS = 64_000;

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

  /** The record's value as text, cut to DEAD_LETTER_PAYLOAD_CHARS. */
  @IsString()
  @MaxLength(DEAD_LETTER_PAYLOAD_CHARS + 100)
  payload!: string;
}
