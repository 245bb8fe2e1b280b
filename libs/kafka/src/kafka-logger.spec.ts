import { Logger } from '@nestjs/common';
import { logLevel } from 'kafkajs';
import { nestKafkaLogCreator } from './kafka-logger';

describe('nestKafkaLogCreator', () => {
  const log = nestKafkaLogCreator(logLevel.DEBUG);
  const entry = (message: string, extra: Record<string, unknown> = {}) => ({
    namespace: 'Connection',
    label: 'ERROR',
    log: { timestamp: '2026-11-24T00:00:00.000Z', logger: 'kafkajs', message, ...extra },
  });
  let spies: Record<'error' | 'warn' | 'log' | 'debug', jest.SpyInstance>;

  beforeEach(() => {
    spies = {
      error: jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined),
      warn: jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined),
      log: jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined),
      debug: jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined),
    };
  });
  afterEach(() => jest.restoreAllMocks());

  it("logs a broker's error answer as a warning (kafkajs retries it or the operation fails), with its details", () => {
    log({
      ...entry('Response InitProducerId(key: 22, version: 1)', {
        error: "The coordinator is loading and hence can't process requests for this group",
      }),
      level: logLevel.ERROR,
    });
    expect(spies.error).not.toHaveBeenCalled();
    expect(spies.warn).toHaveBeenCalledWith(
      expect.stringMatching(/^Response InitProducerId\(key: 22, version: 1\) \{.*"error":"The coordinator is loading/),
    );
  });

  it('keeps every other error an error, and the other levels as they are', () => {
    log({ ...entry('Crash: KafkaJSNumberOfRetriesExceeded'), level: logLevel.ERROR });
    log({ ...entry('Consumer has joined the group'), level: logLevel.INFO });
    log({ ...entry('Restarting the consumer'), level: logLevel.WARN });
    log({ ...entry('Request Fetch'), level: logLevel.DEBUG });
    expect(spies.error).toHaveBeenCalledWith(expect.stringMatching(/^Crash: KafkaJSNumberOfRetriesExceeded /));
    expect(spies.log).toHaveBeenCalledWith(expect.stringMatching(/^Consumer has joined the group /));
    expect(spies.warn).toHaveBeenCalledWith(expect.stringMatching(/^Restarting the consumer /));
    expect(spies.debug).toHaveBeenCalledWith(expect.stringMatching(/^Request Fetch /));
  });
});
