/**
 * Rule specs for the decider in the style of Emmett's `DeciderSpecification` (test helper, not exported from the
 * package): given the session's past events, when a command runs, then it decides these events — or nothing, or
 * it throws. `when` runs the engine's `runCommand`, so what is decided must also fold; `then` returns the result for
 * checks on the state it leads to.
 *
 *     given(history(config, [user('hi')])).when(compactCommand('manual')).then([refused]);
 */
import { foldEvents, runCommand, type CommandResult } from '../decider';
import type { CompactionTrigger, SessionCommand, SessionConfig, SessionEvent } from '../model/events';
import type { ChatMessage } from '../model/message';

export interface DeciderThen {
  /** The command decides exactly these events, in order (jest's `toEqual`: asymmetric matchers welcome). */
  then(expected: readonly unknown[]): CommandResult;
  /** The command decides nothing (the state stays as it was). */
  thenNothingHappened(): CommandResult;
  /** The command throws (as jest's `toThrow` matches: a message part, a pattern, an error class). */
  thenThrows(expected?: string | RegExp | (new (...args: never[]) => Error)): void;
}

export interface DeciderWhen {
  when(command: SessionCommand): DeciderThen;
}

/** The session folded from `events` (from `initialSessionState(sessionId)`); each `when` starts from it afresh. */
export function given(events: readonly SessionEvent[], sessionId = 'spec'): DeciderWhen {
  return {
    when(command) {
      // Folded per command: appending extends the state's arrays in place, so a state is never shared.
      const run = () => runCommand(foldEvents(sessionId, events), command);
      return {
        then(expected) {
          const result = run();
          expect(result.events).toEqual(expected);
          return result;
        },
        thenNothingHappened() {
          const result = run();
          expect(result.events).toEqual([]);
          return result;
        },
        thenThrows(expected) {
          expect(run).toThrow(expected);
        },
      };
    },
  };
}

/** A session's configuration and its messages appended from position `from`, as events. */
export function history(config: SessionConfig, messages: readonly ChatMessage[] = [], from = 0): SessionEvent[] {
  return [{ type: 'SessionConfigured', data: { config } }, ...appended(messages, from)];
}

/** Messages appended from position `from`, as events. */
export const appended = (messages: readonly ChatMessage[], from: number): SessionEvent[] =>
  messages.map((message, i) => ({ type: 'MessageAppended', data: { position: from + i, message } }));

/** The `Compact` command. */
export const compactCommand = (trigger: CompactionTrigger = 'auto', errorText?: string): SessionCommand => ({
  type: 'Compact',
  data: { trigger, ...(errorText !== undefined ? { errorText } : {}) },
});
