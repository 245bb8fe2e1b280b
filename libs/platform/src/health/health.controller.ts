import { Controller, Get, Inject } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { KafkaHealthIndicator } from '@ctxledger/kafka';
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
    @Inject(ConfigService) private readonly config: ConfigService,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    const timeout = this.config.getOrThrow<number>('HEALTH_TIMEOUT_MS');
    const stall = this.config.getOrThrow<number>('HEALTH_CONSUMER_STALL_MS');
    return this.health.check([
      () => this.kafka.isHealthy('kafka', timeout, stall),
      () => this.mongo.isHealthy('mongodb', timeout),
    ]);
  }
}
