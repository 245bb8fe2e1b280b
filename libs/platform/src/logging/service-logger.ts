import { ConsoleLogger, type ConsoleLoggerOptions, type LogLevel } from '@nestjs/common';
import { currentCorrelation } from '@ctxledger/observability';
import { redactSecrets } from './redact';

export const LOG_LEVELS = ['error', 'warn', 'log', 'debug', 'verbose'] as const;

/** LOG_LEVEL → the levels printed (that level and the more severe ones); unknown → up to `log`. */
export function logLevelsFrom(level: string | undefined): LogLevel[] {
  const index = LOG_LEVELS.indexOf((level ?? 'log') as (typeof LOG_LEVELS)[number]);
  return LOG_LEVELS.slice(0, index < 0 ? 3 : index + 1);
}

/**
 * Nest's ConsoleLogger, whose JSON mode writes one object per line with the fields a log pipeline needs:
 * `timestamp` (ISO 8601), `level`, `service`, `context`, `message`, and — when the line is written while an
 * HTTP request or a Kafka record is handled — its `correlationId` and `sessionId`. Secrets are redacted
 * from messages and stacks. Text mode is Nest's own, with the correlation id after the context.
 */
export class ServiceLogger extends ConsoleLogger {
  constructor(
    private readonly service: string,
    options: ConsoleLoggerOptions = {},
  ) {
    super(service, options);
  }

  /** LOG_FORMAT=json → JSON lines; LOG_LEVEL as for logLevelsFrom. */
  static fromEnv(service: string, env: NodeJS.ProcessEnv = process.env): ServiceLogger {
    return new ServiceLogger(service, { json: env.LOG_FORMAT === 'json', logLevels: logLevelsFrom(env.LOG_LEVEL) });
  }

  /** Text mode: the correlation id follows the context, `[EventPublisher] (req-42) block.created …`. */
  protected override formatContext(context: string): string {
    const correlation = currentCorrelation();
    return correlation
      ? `${super.formatContext(context)}(${correlation.correlationId}) `
      : super.formatContext(context);
  }

  /** One JSON object per line, whatever the inspect options (compact, colours) say. */
  protected override printAsJson(message: unknown, options: JsonLineOptions): void {
    const line = this.stringifyJsonLogObject(this.jsonLine(message, options));
    if (this.options.forceConsole) {
      if (options.writeStreamType === 'stderr') console.error(line);
      else console.log(line);
    } else {
      process[options.writeStreamType ?? 'stdout'].write(`${line}\n`);
    }
  }

  /** The fields of a JSON line, in the order they are read. */
  protected jsonLine(message: unknown, options: JsonLineOptions): Record<string, unknown> {
    const correlation = currentCorrelation();
    const stack = options.errorStack;
    return {
      timestamp: new Date().toISOString(),
      level: options.logLevel,
      service: this.service,
      context: options.context || this.service,
      message: typeof message === 'string' ? redactSecrets(message) : message,
      ...(correlation && { correlationId: correlation.correlationId }),
      ...(correlation?.sessionId !== undefined && { sessionId: correlation.sessionId }),
      pid: process.pid,
      ...(stack !== undefined && stack !== null && { stack: typeof stack === 'string' ? redactSecrets(stack) : stack }),
    };
  }
}

interface JsonLineOptions {
  context: string;
  logLevel: LogLevel;
  writeStreamType?: 'stdout' | 'stderr';
  errorStack?: unknown;
}
