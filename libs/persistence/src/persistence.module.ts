import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { MongooseModule, type MongooseModuleOptions } from '@nestjs/mongoose';

/** The TLS and credential variables of the environment (validated by the platform's BaseServiceEnv). */
export interface MongoSecurityInput {
  readonly MONGODB_TLS?: boolean;
  readonly MONGODB_TLS_CA_FILE?: string;
  readonly MONGODB_TLS_CERT_KEY_FILE?: string;
  readonly MONGODB_TLS_CERT_KEY_PASSWORD?: string;
  readonly MONGODB_USERNAME?: string;
  readonly MONGODB_PASSWORD?: string;
  readonly MONGODB_AUTH_SOURCE?: string;
}

const set = (v: string | undefined): v is string => v !== undefined && v !== '';

/**
 * The driver options of the connection: the URI plus TLS and credentials from their own variables (the
 * URI's own `tls=`/`tlsCAFile=` options keep working; these only add to them).
 */
export function mongoConnectionOptions(
  uri: string,
  appName: string,
  env: MongoSecurityInput,
): MongooseModuleOptions & { uri: string } {
  return {
    uri,
    serverSelectionTimeoutMS: 5000,
    appName,
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

const SECURITY_VARIABLES: readonly (keyof MongoSecurityInput)[] = [
  'MONGODB_TLS',
  'MONGODB_TLS_CA_FILE',
  'MONGODB_TLS_CERT_KEY_FILE',
  'MONGODB_TLS_CERT_KEY_PASSWORD',
  'MONGODB_USERNAME',
  'MONGODB_PASSWORD',
  'MONGODB_AUTH_SOURCE',
];

/** The connection options of a service from its validated config. */
export function mongoOptionsFromConfig(config: ConfigService): MongooseModuleOptions & { uri: string } {
  const security = Object.fromEntries(SECURITY_VARIABLES.map((name) => [name, config.get<unknown>(name)]));
  return mongoConnectionOptions(
    config.getOrThrow<string>('MONGODB_URI'),
    config.getOrThrow<string>('SERVICE_NAME'),
    security as MongoSecurityInput,
  );
}

/**
 * The one place that opens the MongoDB connection (MONGODB_URI, plus MONGODB_TLS* and MONGODB_USERNAME /
 * MONGODB_PASSWORD). Code stays inside the subset that FerretDB v1 supports (no transactions, change
 * streams, TTL or partial indexes) so the local stand-in and a real MongoDB run the same code.
 */
@Module({
  imports: [
    MongooseModule.forRootAsync({
      inject: [ConfigService],
      useFactory: mongoOptionsFromConfig,
    }),
  ],
  exports: [MongooseModule],
})
export class PersistenceModule {}
