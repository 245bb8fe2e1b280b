import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { KafkaHealthIndicator } from '@ctxledger/kafka';
import { SERVICE_ENV, type BaseServiceEnv } from '../config/base-env';
import { MongoPingIndicator } from './mongo-ping.indicator';

/**
 * `GET /health`: 200 when Kafka and MongoDB both answer and the service's consumers run and move, 503 with the
 * failing one otherwise (KafkaHealthIndicator says what "kafka" covers).
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly kafka: KafkaHealthIndicator,
    private readonly mongo: MongoPingIndicator,
    @Inject(SERVICE_ENV) private readonly env: BaseServiceEnv,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    const { HEALTH_TIMEOUT_MS: timeout, HEALTH_CONSUMER_STALL_MS: stall } = this.env;
    return this.health.check([
      () => this.kafka.isHealthy('kafka', timeout, stall),
      () => this.mongo.isHealthy('mongodb', timeout),
    ]);
  }
}
