import { Injectable, ValidationPipe, type PipeTransform } from '@nestjs/common';
import { VALIDATION_OPTIONS } from '../http/http-setup';
import { AppendMessageBatchDto, AppendMessageDto } from './dto/append-messages.dto';

/** The append body is one message or `{ messages: [...] }`; either way the handler gets the list. */
@Injectable()
export class AppendMessagesPipe implements PipeTransform<unknown, Promise<AppendMessageDto[]>> {
  private readonly validation = new ValidationPipe(VALIDATION_OPTIONS);

  async transform(value: unknown): Promise<AppendMessageDto[]> {
    const isBatch = typeof value === 'object' && value !== null && 'messages' in value;
    if (isBatch) {
      const batch = (await this.validation.transform(value, {
        type: 'body',
        metatype: AppendMessageBatchDto,
      })) as AppendMessageBatchDto;
      return batch.messages;
    }
    return [(await this.validation.transform(value, { type: 'body', metatype: AppendMessageDto })) as AppendMessageDto];
  }
}
