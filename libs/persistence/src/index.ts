export * from './persistence.module';
export * from './ensure-indexes';
