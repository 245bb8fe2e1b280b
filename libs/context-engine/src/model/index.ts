export * from './message';
export * from './block';
export * from './policy';
export * from './events';
