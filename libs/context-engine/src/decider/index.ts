import type { SessionCommand, SessionEvent } from '../model/events';
import { decide } from './decide';
import { evolve } from './evolve';
import { initialSessionState, type SessionState } from './state';

export { decide, pendingDigestAnswerable } from './decide';
export { evolve } from './evolve';
export { runCommand, type CommandResult } from './run-command';
export { refusalText, NO_PROGRESS_TEXT, lastNoOpText } from './refusal';
export {
  checkInvariants,
  budgetViolations,
  turnViolations,
  pairViolations,
  floorViolations,
  floorPositions,
  missingFloor,
  stepViolations,
  type InvariantViolation,
  type PairViolations,
  type StepStart,
} from './invariants';
export { initialSessionState, effectiveTotal, rawTotal, configure, type SessionState } from './state';
export { effectiveHistory, effectiveEntries, sessionStats, recount, type SessionStats } from './stats';

/** The Emmett-style decider bundle. */
export const sessionDecider = {
  initialState: initialSessionState,
  evolve,
  decide,
} satisfies {
  initialState: (id: string) => SessionState;
  evolve: (s: SessionState, e: SessionEvent) => SessionState;
  decide: (c: SessionCommand, s: SessionState) => SessionEvent[];
};

/** Fold events into a fresh state. */
export const foldEvents = (sessionId: string, events: readonly SessionEvent[]): SessionState =>
  events.reduce(evolve, initialSessionState(sessionId));
