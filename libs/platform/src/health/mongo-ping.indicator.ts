import { Injectable } from '@nestjs/common';
import { InjectConnection } from '@nestjs/mongoose';
import { HealthIndicatorService } from '@nestjs/terminus';
import type { Connection } from 'mongoose';

/**
 * MongoDB is up when the server answers a `ping` within the timeout. (Terminus' MongooseHealthIndicator only
 * reads mongoose's cached readyState, which stays "connected" for seconds after the server died: the fault test
 * that stops the MongoDB-wire server saw `/health` answer 200 while every read failed.)
 */
@Injectable()
export class MongoPingIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    @InjectConnection() private readonly connection: Connection,
  ) {}

  async isHealthy(key: string, timeoutMs: number) {
    const indicator = this.health.check(key);
    let timer: NodeJS.Timeout | undefined;
    try {
      const db = this.connection.db;
      if (!db || this.connection.readyState !== 1) throw new Error('not connected');
      await Promise.race([
        db.command({ ping: 1 }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
  }
}
