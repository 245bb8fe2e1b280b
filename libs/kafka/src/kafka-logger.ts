import { Logger } from '@nestjs/common';
import { logLevel, type logCreator } from 'kafkajs';

/** Routes kafkajs' own log lines through Nest's logger, so they share the service's format. */
export const nestKafkaLogCreator: logCreator = () => {
  const logger = new Logger('kafkajs');
  return ({ level, log }) => {
    const { message, ...extra } = log;
    const line = `${message} ${JSON.stringify(extra)}`;
    if (level === logLevel.ERROR) logger.error(line);
    else if (level === logLevel.WARN) logger.warn(line);
    else if (level === logLevel.INFO) logger.log(line);
    else logger.debug(line);
  };
};
