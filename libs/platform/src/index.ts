export * from './config/base-env';
export * from './config/service-env';
export * from './platform.module';
export * from './bootstrap';
