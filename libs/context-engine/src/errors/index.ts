export { classifyProviderError, getContextOverflowProvider, isContextOverflowError } from './provider-errors';
export type { ProviderErrorClassification, ProviderErrorKind } from './provider-errors';
