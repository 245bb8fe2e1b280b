/** DI token of the typed SummarizerSettings. */
export const SUMMARIZER_SETTINGS = Symbol('SUMMARIZER_SETTINGS');
