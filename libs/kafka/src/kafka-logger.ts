import { Logger } from '@nestjs/common';
import { logLevel, type logCreator } from 'kafkajs';

/**
 * kafkajs warnings that this project's settings answer, each logged once per process as a plain line that says
 * why (instead of a warning per producer, which reads as a fault at every boot).
 */
export const EXPLAINED_KAFKAJS_WARNINGS: Readonly<Record<string, string>> = {
  // kafkajs' idempotent producer makes its own retries of one send duplicate-free. It warns whenever the retries
  // are bounded, because a send that gives up and is sent again by the caller is a new record to the broker.
  // Ours are bounded on purpose (a POST answers 503 within KAFKA_SEND_TIMEOUT_MS instead of hanging through an
  // outage), and a repeated send is harmless: every event carries its id (messages their clientMessageId, dead
  // letters and forwarded records ids derived from their source), and consumers drop what they already applied.
  'Limiting retries for the idempotent producer may invalidate EoS guarantees':
    'the idempotent producers retry a bounded number of times (a send that gives up is reported to the caller); ' +
    'a record the caller sends again is dropped downstream by its event id or clientMessageId',
};

const explained = new Set<string>();

/**
 * Routes kafkajs' own log lines through Nest's logger, so they share the service's format. A broker's error
 * answer (`Response <Api> … error`) is a warning: kafkajs logs it before its retrier decides, and most are
 * transient (a fresh broker's "coordinator is loading"); one that lasts fails the operation, which is logged
 * as an error where it is handled.
 */
export const nestKafkaLogCreator: logCreator = () => {
  const logger = new Logger('kafkajs');
  return ({ level, log }) => {
    const { message, ...extra } = log;
    const explanation = EXPLAINED_KAFKAJS_WARNINGS[message];
    if (explanation !== undefined) {
      if (!explained.has(message)) logger.log(`${message}: ${explanation}`);
      explained.add(message);
      return;
    }
    const line = `${message} ${JSON.stringify(extra)}`;
    if (level === logLevel.ERROR && !message.startsWith('Response ')) logger.error(line);
    else if (level === logLevel.ERROR || level === logLevel.WARN) logger.warn(line);
    else if (level === logLevel.INFO) logger.log(line);
    else logger.debug(line);
  };
};
