export * from './env-namespace';
export * from './env-rules';
export * from './secret';
export * from './validate-env';
