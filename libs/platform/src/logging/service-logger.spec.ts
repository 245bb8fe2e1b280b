import { ConsoleLogger, Logger } from '@nestjs/common';
import { runWithCorrelation } from '@ctxledger/observability';
import { logLevelsFrom, ServiceLogger } from './service-logger';
import { redactSecrets } from './redact';

/** Captures what the logger writes to stdout and stderr while `fn` runs. */
function capture(fn: () => void): { stdout: string[]; stderr: string[] } {
  const out = { stdout: [] as string[], stderr: [] as string[] };
  const spies = (['stdout', 'stderr'] as const).map((stream) =>
    jest.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      out[stream].push(chunk.toString());
      return true;
    }),
  );
  try {
    fn();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return out;
}

const parse = (chunks: string[]) =>
  chunks
    .join('')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('ServiceLogger (JSON mode)', () => {
  const logger = new ServiceLogger('compaction-service', { json: true, logLevels: logLevelsFrom('debug') });

  it('writes one JSON object per line: timestamp, level, service, context, message', () => {
    const { stdout } = capture(() => logger.log('block.created b1', 'EventPublisher'));
    expect(stdout).toHaveLength(1);
    expect(stdout[0]!.endsWith('\n')).toBe(true);
    const [line] = parse(stdout);
    expect(line).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'log',
      service: 'compaction-service',
      context: 'EventPublisher',
      message: 'block.created b1',
      pid: process.pid,
    });
    expect(line).not.toHaveProperty('correlationId');
  });

  it('adds the correlation id and session id of the work in progress', () => {
    const { stdout } = capture(() =>
      runWithCorrelation({ correlationId: 'req-7', sessionId: 's-9' }, () => logger.warn('slow', 'Ctx')),
    );
    expect(parse(stdout)).toEqual([
      expect.objectContaining({ level: 'warn', context: 'Ctx', correlationId: 'req-7', sessionId: 's-9' }),
    ]);
  });

  it('through Nest Logger instances once it is the app logger; errors on stderr with their stack', () => {
    Logger.overrideLogger(logger);
    try {
      const { stdout, stderr } = capture(() =>
        runWithCorrelation({ correlationId: 'req-8' }, () => {
          new Logger('SummaryRequestsService').log('summary by offline');
          new Logger('CompactionService').error('engine failed', 'Error: boom\n    at decide (engine.ts:1:1)');
        }),
      );
      expect(parse(stdout)).toEqual([
        expect.objectContaining({
          context: 'SummaryRequestsService',
          message: 'summary by offline',
          correlationId: 'req-8',
        }),
      ]);
      expect(parse(stderr)).toEqual([
        expect.objectContaining({
          level: 'error',
          context: 'CompactionService',
          correlationId: 'req-8',
          stack: expect.stringContaining('at decide'),
        }),
      ]);
    } finally {
      Logger.overrideLogger(new ConsoleLogger());
    }
  });

  it('redacts secrets from messages', () => {
    const { stderr } = capture(() =>
      logger.error(
        'connect failed: mongodb://admin:hunter2@db:27017/x; Authorization: Bearer abc.def; apiKey="sk-abcdefghijklmnop1234"',
      ),
    );
    const [line] = parse(stderr);
    expect(line!.message).toBe(
      'connect failed: mongodb://[redacted]@db:27017/x; Authorization: [redacted] [redacted]; apiKey="[redacted]"',
    );
    expect(JSON.stringify(line)).not.toMatch(/hunter2|abc\.def|sk-abc/);
  });

  it('respects the level filter', () => {
    const quiet = new ServiceLogger('s', { json: true, logLevels: logLevelsFrom('warn') });
    const { stdout } = capture(() => {
      quiet.log('not printed');
      quiet.debug('not printed');
      quiet.warn('printed');
    });
    expect(parse(stdout).map((l) => l.message)).toEqual(['printed']);
  });
});

describe('ServiceLogger.fromEnv and logLevelsFrom', () => {
  it('LOG_FORMAT=json → JSON lines, anything else → Nest text lines', () => {
    const json = capture(() => ServiceLogger.fromEnv('svc', { LOG_FORMAT: 'json' }).log('hello')).stdout;
    expect(parse(json)[0]).toMatchObject({ service: 'svc', message: 'hello' });
    const text = capture(() => ServiceLogger.fromEnv('svc', { LOG_FORMAT: 'text', NO_COLOR: '1' }).log('hello')).stdout;
    expect(text.join('')).toMatch(/\[svc\].*hello/);
    expect(() => JSON.parse(text.join(''))).toThrow();
  });

  it('text mode shows the correlation id after the context', () => {
    const logger = new ServiceLogger('svc', { colors: false });
    const text = capture(() => runWithCorrelation({ correlationId: 'req-3' }, () => logger.log('hello', 'Ctx'))).stdout;
    expect(text.join('')).toMatch(/\[Ctx\] \(req-3\) hello/);
  });

  it('maps LOG_LEVEL to the levels printed', () => {
    expect(logLevelsFrom('error')).toEqual(['error']);
    expect(logLevelsFrom(undefined)).toEqual(['error', 'warn', 'log']);
    expect(logLevelsFrom('verbose')).toEqual(['error', 'warn', 'log', 'debug', 'verbose']);
    expect(logLevelsFrom('nonsense')).toEqual(['error', 'warn', 'log']);
  });
});

describe('redactSecrets', () => {
  it.each([
    ['mongodb+srv://user:p%40ss@cluster0/db', 'mongodb+srv://[redacted]@cluster0/db'],
    ['Bearer eyJhbGciOi.J9.abc', 'Bearer [redacted]'],
    ['x-api-key: abc123', 'x-api-key: [redacted]'],
    ['{"password":"s3cret","user":"u"}', '{"password":"[redacted]","user":"u"}'],
    ['key sk-ant-api03-abcdefghijklmnop', 'key [redacted]'],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary messages (token counts included) alone', () => {
    const text = 'block.created b1 (summary, positions 0-12): 5400 → 300 tokens; waitToken 42; maxOutputTokens: 1000';
    expect(redactSecrets(text)).toBe(text);
  });
});
