import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { LIMITS } from '@ctxledger/contracts';

/** `POST …/overflow`: the error the provider answered (message or JSON body, as text). */
export class OverflowReportDto {
  @ApiProperty({ maxLength: LIMITS.maxErrorTextChars, example: 'prompt is too long: 210000 tokens > 200000 maximum' })
  @IsString()
  @Length(1, LIMITS.maxErrorTextChars)
  errorText!: string;
}
