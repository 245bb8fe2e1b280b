import { Controller, Get, Inject } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, MongooseHealthIndicator } from '@nestjs/terminus';
import { KafkaHealthIndicator } from '@ctxledger/kafka';

/** `GET /health`: 200 when Kafka and MongoDB both answer, 503 with the failing one otherwise. */
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly kafka: KafkaHealthIndicator,
    private readonly mongo: MongooseHealthIndicator,
    @Inject(ConfigService) private readonly config: ConfigService,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    const timeout = this.config.getOrThrow<number>('HEALTH_TIMEOUT_MS');
    return this.health.check([
      () => this.kafka.isHealthy('kafka', timeout),
      () => this.mongo.pingCheck('mongodb', { timeout }),
    ]);
  }
}
