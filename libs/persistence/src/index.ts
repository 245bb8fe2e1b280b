export * from './config/mongo.env';
export * from './persistence.module';
export * from './ensure-indexes';
