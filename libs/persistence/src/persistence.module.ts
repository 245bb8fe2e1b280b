import { Module, type DynamicModule } from '@nestjs/common';
import { MongooseModule, type MongooseModuleOptions } from '@nestjs/mongoose';
import { mongoEnv, type MongoEnv } from './config/mongo.env';

export interface PersistenceOptions {
  /** The connection's app name (the service's name). */
  readonly appName: string;
  /** Another database than MONGODB_URI's (the projection rebuild writes into one of its own). */
  readonly database?: string;
}

const set = (v: string | undefined): v is string => v !== undefined && v !== '';

/**
 * The driver options of the connection: the URI plus TLS and credentials from their own variables (the
 * URI's own `tls=`/`tlsCAFile=` options keep working; these only add to them).
 */
export function mongoConnectionOptions(
  env: MongoEnv,
  options: PersistenceOptions,
): MongooseModuleOptions & { uri: string } {
  return {
    uri: env.MONGODB_URI,
    serverSelectionTimeoutMS: 5000,
    appName: options.appName,
    ...(options.database !== undefined && { dbName: options.database }),
    ...(env.MONGODB_TLS && { tls: true }),
    ...(set(env.MONGODB_TLS_CA_FILE) && { tlsCAFile: env.MONGODB_TLS_CA_FILE }),
    ...(set(env.MONGODB_TLS_CERT_KEY_FILE) && { tlsCertificateKeyFile: env.MONGODB_TLS_CERT_KEY_FILE }),
    ...(set(env.MONGODB_TLS_CERT_KEY_PASSWORD) && { tlsCertificateKeyFilePassword: env.MONGODB_TLS_CERT_KEY_PASSWORD }),
    ...(set(env.MONGODB_USERNAME) && {
      auth: { username: env.MONGODB_USERNAME, password: env.MONGODB_PASSWORD },
    }),
    ...(set(env.MONGODB_AUTH_SOURCE) && { authSource: env.MONGODB_AUTH_SOURCE }),
  };
}

/**
 * The one place that opens the MongoDB connection, from the validated MongoDB variables (MongoEnv: MONGODB_URI,
 * MONGODB_TLS*, MONGODB_USERNAME / MONGODB_PASSWORD). Code stays inside the subset that FerretDB v1 supports (no
 * transactions, change streams, TTL or partial indexes) so the local stand-in and a real MongoDB run the same code.
 */
@Module({})
export class PersistenceModule {
  /** Needs the `mongoEnv` namespace of `@nestjs/config` (the platform composes it). */
  static forService(options: PersistenceOptions): DynamicModule {
    return {
      module: PersistenceModule,
      imports: [
        MongooseModule.forRootAsync({
          inject: [mongoEnv.KEY],
          useFactory: (env: MongoEnv) => mongoConnectionOptions(env, options),
        }),
      ],
      exports: [MongooseModule],
    };
  }
}
