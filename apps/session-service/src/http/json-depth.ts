import { jsonNestsDeeperThan, LIMITS } from '@ctxledger/contracts';

/**
 * body-parser `verify` hook: 400 for a body nested deeper than `max` levels, before the ValidationPipe's
 * recursive walk sees it (found by the fault fuzz: ~5,000 nested arrays overflowed its stack, a 500).
 */
export function refuseDeepJson(max: number = LIMITS.maxJsonDepth) {
  return (_req: unknown, _res: unknown, body: Buffer): void => {
    if (jsonNestsDeeperThan(body, max)) {
      throw Object.assign(new Error(`the JSON body nests deeper than ${max} levels`), {
        status: 400,
        type: 'entity.too.deep',
      });
    }
  };
}
