/**
 * The pure context engine: no I/O, no clock, no randomness. Everything a service needs to keep an agent's
 * history inside its context window.
 */
export * from './model';
export * from './tokens';
export * from './windows';
export * from './budget';
export * from './turns';
export * from './overlay';
export * from './stages';
export * from './decider';
export * from './repair';
export * from './errors';
export * from './render';
export * from './summarizer';
