import type { SessionCommand, SessionEvent } from '../model/events';
import { decide } from './decide';
import { evolve } from './evolve';
import type { SessionState } from './state';

/** What a command did: the events it decided and the state they lead to. */
export interface CommandResult {
  readonly state: SessionState;
  readonly events: SessionEvent[];
}

/**
 * Runs a command on a session (Emmett's command handler without the store): `decide`, then `evolve` each decided
 * event in order. All or nothing: when deciding or folding any event throws, the error propagates and the state
 * passed in is as it was (decided events never include `MessageAppended`, the one event `evolve` applies in
 * place), so a caller that keeps it loses nothing. The one decide → evolve loop of the services, replay and specs.
 */
export function runCommand(state: SessionState, command: SessionCommand): CommandResult {
  const events = decide(command, state);
  let next = state;
  for (const event of events) next = evolve(next, event);
  return { state: next, events };
}
