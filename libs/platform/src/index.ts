export * from './config/base-env';
export * from './config/validate-env';
export * from './platform.module';
export * from './bootstrap';
export * from './config/secret';
export * from './config/env-rules';
