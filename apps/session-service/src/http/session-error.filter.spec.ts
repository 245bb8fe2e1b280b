import {
  Controller,
  Get,
  Param,
  ServiceUnavailableException,
  type ArgumentsHost,
  type INestApplication,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mongo } from 'mongoose';
import { firstValueFrom, type Observable } from 'rxjs';
import {
  InvalidRequestError,
  ReadTimeoutError,
  TooLargeError,
  UnavailableError,
  UnprocessableError,
} from '../session-errors';
import { listen } from '../testing/in-memory-wiring';
import { HttpErrorsModule } from './http-errors.module';
import { SessionErrorFilter } from './session-error.filter';

// The answers the commands' wiring test does not reach: each error kind the filter maps, as the HTTP client sees it.

const THROWN: Record<string, () => Error> = {
  invalid: () => new InvalidRequestError(['a: must be a string', 'b: must be set']),
  'too-large': () => new TooLargeError('the events are 2000000 bytes, over what one Kafka request carries'),
  unprocessable: () => new UnprocessableError('not a context overflow', { classification: { kind: 'auth' } }),
  unavailable: () => new UnavailableError('the summarizer is unavailable', 7),
  timeout: () => new ReadTimeoutError('waited 5 ms for the read model of session s to reach offset 9'),
  'mongo-down': () => new mongo.MongoNetworkError('connection refused'),
  'mongo-other': () => new mongo.MongoServerError({ message: 'E11000 duplicate key', code: 11000 }),
  'http-503': () => new ServiceUnavailableException({ statusCode: 503, message: 'later', retryAfterSeconds: 3 }),
  other: () => new Error('a bug'),
};

@Controller('throw')
class ThrowingController {
  @Get(':kind')
  throw(@Param('kind') kind: string): never {
    throw THROWN[kind]!();
  }
}

describe('SessionErrorFilter', () => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [HttpErrorsModule],
      controllers: [ThrowingController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    base = await listen(app);
  });

  afterAll(() => app.close());

  const answer = async (kind: string) => {
    const res = await fetch(`${base}/throw/${kind}`);
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as unknown };
  };

  it.each([
    [
      'invalid',
      400,
      null,
      { statusCode: 400, error: 'Bad Request', message: ['a: must be a string', 'b: must be set'] },
    ],
    [
      'too-large',
      413,
      null,
      {
        statusCode: 413,
        error: 'Payload Too Large',
        message: 'the events are 2000000 bytes, over what one Kafka request carries',
      },
    ],
    [
      'unprocessable',
      422,
      null,
      {
        statusCode: 422,
        error: 'Unprocessable Entity',
        message: 'not a context overflow',
        classification: { kind: 'auth' },
      },
    ],
    [
      'unavailable',
      503,
      '7',
      { statusCode: 503, error: 'Service Unavailable', message: 'the summarizer is unavailable', retryAfterSeconds: 7 },
    ],
    [
      'timeout',
      504,
      null,
      {
        statusCode: 504,
        error: 'Gateway Timeout',
        message: 'waited 5 ms for the read model of session s to reach offset 9',
      },
    ],
    [
      'mongo-down',
      503,
      null,
      {
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'MongoDB is unavailable: the read model cannot be read now. Retry',
      },
    ],
    ['mongo-other', 500, null, { statusCode: 500, message: 'Internal server error' }],
    ['http-503', 503, '3', { statusCode: 503, message: 'later', retryAfterSeconds: 3 }],
    ['other', 500, null, { statusCode: 500, message: 'Internal server error' }],
  ])('%s → %i', async (kind, status, retryAfter, body) => {
    expect(await answer(kind)).toEqual({ status, retryAfter, body });
  });
});

describe('SessionErrorFilter in the projector (rpc context)', () => {
  it("keeps Nest's default rpc handling: the transport sees an error to retry, not an HTTP answer", async () => {
    const host = { getType: () => 'rpc' } as unknown as ArgumentsHost;
    const handled = new SessionErrorFilter().catch(new mongo.MongoNetworkError('connection refused'), host);
    await expect(firstValueFrom(handled as Observable<unknown>)).rejects.toEqual({
      status: 'error',
      message: 'Internal server error',
    });
  });
});
