import 'reflect-metadata';
import { IsBoolean, IsOptional, IsString, Matches } from 'class-validator';
import { envNamespace, IsReadableFile, isSet, Secret, ToBoolean, type CrossChecked } from '@ctxledger/config';

/**
 * The MongoDB variables of every service: the URI, TLS and credentials. Validated at boot with the rest of the
 * service's environment; secrets (`@Secret()`) never appear in a message or a log line.
 */
export class MongoEnv implements CrossChecked {
  @IsString()
  @Matches(/^mongodb(\+srv)?:\/\/.+/, { message: 'must be a mongodb:// or mongodb+srv:// URI' })
  MONGODB_URI: string = 'mongodb://127.0.0.1:27017/ctxledger';

  /** TLS to MongoDB (the same as `tls=true` in MONGODB_URI; `mongodb+srv://` turns it on by itself). */
  @ToBoolean()
  @IsBoolean()
  MONGODB_TLS: boolean = false;

  /** PEM file of the CA(s) of the MongoDB servers (driver option `tlsCAFile`). */
  @IsOptional()
  @IsReadableFile()
  MONGODB_TLS_CA_FILE?: string;

  /** PEM file with the client certificate and its key (driver option `tlsCertificateKeyFile`). */
  @IsOptional()
  @IsReadableFile()
  MONGODB_TLS_CERT_KEY_FILE?: string;

  @Secret({ file: true })
  @IsOptional()
  @IsString()
  MONGODB_TLS_CERT_KEY_PASSWORD?: string;

  /** Credentials kept out of MONGODB_URI (so the URI can be logged and shown). */
  @IsOptional()
  @IsString()
  MONGODB_USERNAME?: string;

  @Secret({ file: true })
  @IsOptional()
  @IsString()
  MONGODB_PASSWORD?: string;

  /** Database that holds the user (driver option `authSource`; default the URI's database). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9_$-]{1,64}$/, { message: 'must be a database name' })
  MONGODB_AUTH_SOURCE?: string;

  crossCheck(): string[] {
    const problems: string[] = [];
    if (!this.MONGODB_TLS && !this.MONGODB_URI.startsWith('mongodb+srv://')) {
      for (const name of [
        'MONGODB_TLS_CA_FILE',
        'MONGODB_TLS_CERT_KEY_FILE',
        'MONGODB_TLS_CERT_KEY_PASSWORD',
      ] as const) {
        if (isSet(this[name]) && !/[?&](tls|ssl)=true/i.test(this.MONGODB_URI))
          problems.push(`${name}: only used with MONGODB_TLS=true (or tls=true in MONGODB_URI)`);
      }
    }
    if (isSet(this.MONGODB_USERNAME) !== isSet(this.MONGODB_PASSWORD))
      problems.push('MONGODB_USERNAME / MONGODB_PASSWORD: give both or neither');
    if (isSet(this.MONGODB_USERNAME) && /^mongodb(\+srv)?:\/\/[^/?#]*@/.test(this.MONGODB_URI))
      problems.push('MONGODB_USERNAME: MONGODB_URI already carries credentials; give them in one place');
    return problems;
  }
}

/** The validated MongoEnv of the service (`@Inject(mongoEnv.KEY)`). */
export const mongoEnv = envNamespace('mongo', MongoEnv);
