import { Logger } from '@nestjs/common';
import { logLevel, type logCreator } from 'kafkajs';

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
    const line = `${message} ${JSON.stringify(extra)}`;
    if (level === logLevel.ERROR && !message.startsWith('Response ')) logger.error(line);
    else if (level === logLevel.ERROR || level === logLevel.WARN) logger.warn(line);
    else if (level === logLevel.INFO) logger.log(line);
    else logger.debug(line);
  };
};
