import { BadRequestException, Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { ID_PATTERN, LIMITS } from '@ctxledger/contracts';

/** Path ids (session, block) follow the contracts' id pattern: no operators, dots or spaces reach a query. */
@Injectable()
export class IdParamPipe implements PipeTransform<unknown, string> {
  transform(value: unknown, metadata: ArgumentMetadata): string {
    const name = metadata.data ?? 'id';
    if (
      typeof value !== 'string' ||
      value.length === 0 ||
      value.length > LIMITS.maxIdLength ||
      !ID_PATTERN.test(value)
    ) {
      throw new BadRequestException([`${name}: must be 1-${LIMITS.maxIdLength} of letters, digits and _:@-`]);
    }
    return value;
  }
}
