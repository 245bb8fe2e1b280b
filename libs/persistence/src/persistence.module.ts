import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { MongooseModule } from '@nestjs/mongoose';

/**
 * The one place that opens the MongoDB connection (MONGODB_URI). Code stays inside the subset that
 * FerretDB v1 supports (no transactions, change streams, TTL or partial indexes) so the local stand-in
 * and a real MongoDB run the same code.
 */
@Module({
  imports: [
    MongooseModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        uri: config.getOrThrow<string>('MONGODB_URI'),
        serverSelectionTimeoutMS: 5000,
        appName: config.getOrThrow<string>('SERVICE_NAME'),
      }),
    }),
  ],
  exports: [MongooseModule],
})
export class PersistenceModule {}
