/** Test helpers (not exported from the package): message builders and a replay loop over the decider. */
import { evolve, initialSessionState, runCommand, type SessionState } from '../decider';
import type { SessionCommand, SessionConfig, SessionEvent } from '../model/events';
import type { ChatMessage, ToolCall } from '../model/message';

export const user = (content: string): ChatMessage => ({ role: 'user', content });
export const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });
export const system = (content: string): ChatMessage => ({ role: 'system', content });
export const toolCall = (id: string, name: string, args: Record<string, unknown> | string = {}): ToolCall => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});
export const calls = (content: string, ...toolCalls: ToolCall[]): ChatMessage => ({
  role: 'assistant',
  content,
  toolCalls,
});
export const result = (id: string, content: string, toolName?: string, isError?: boolean): ChatMessage => ({
  role: 'tool',
  content,
  toolCallId: id,
  ...(toolName ? { toolName } : {}),
  ...(isError ? { isError } : {}),
});
/** Calls with ids of their own (`c0`, `c1`, …), for specs that build sessions call by call. */
let callSeq = 0;
export const newCall = (name: string, args: Record<string, unknown>): ToolCall => toolCall(`c${callSeq++}`, name, args);
/** An assistant message (the calls only when there are some). */
export const say = (content: string, ...toolCalls: ToolCall[]): ChatMessage => ({
  role: 'assistant',
  content,
  ...(toolCalls.length > 0 ? { toolCalls } : {}),
});
/** The result of a call, named after its tool. */
export const answer = (c: ToolCall, content: string, isError?: boolean): ChatMessage =>
  result(c.id, content, c.name, isError);
/** A text of roughly `chars` characters of prose-like content, deterministic. */
export const text = (chars: number, seed = 0): string => {
  const words = [
    'alpha',
    'build',
    'config',
    'delta',
    'engine',
    'fix',
    'green',
    'handler',
    'index',
    'json',
    'kafka',
    'ledger',
  ];
  let s = '';
  let i = seed;
  while (s.length < chars) s += `${words[i++ % words.length]}${i % 9 === 0 ? '\n' : ' '}`;
  return s.slice(0, chars);
};

export interface Replay {
  state: SessionState;
  events: SessionEvent[];
}

/** Start a session with a config. */
export function startSession(sessionId: string, config: SessionConfig): Replay {
  const configured: SessionEvent = { type: 'SessionConfigured', data: { config } };
  return { state: evolve(initialSessionState(sessionId), configured), events: [configured] };
}

export function apply(r: Replay, events: readonly SessionEvent[]): SessionEvent[] {
  for (const e of events) {
    r.state = evolve(r.state, e);
    r.events.push(e);
  }
  return [...events];
}

export function append(r: Replay, message: ChatMessage): void {
  apply(r, [{ type: 'MessageAppended', data: { position: r.state.originals.length, message } }]);
}

/** Run a command on the replay's state (the engine's `runCommand`) and record what it decided. */
export function command(r: Replay, c: SessionCommand): SessionEvent[] {
  const { state, events } = runCommand(r.state, c);
  r.state = state;
  r.events.push(...events);
  return events;
}

export const compact = (r: Replay, trigger: 'auto' | 'manual' | 'overflow' = 'auto') =>
  command(r, { type: 'Compact', data: { trigger } });

/** Append all messages, deciding after each; summary requests are answered by `onSummary`. */
export function replayAll(
  sessionId: string,
  config: SessionConfig,
  messages: readonly ChatMessage[],
  onSummary: 'fail' | 'leave' | ((msgs: readonly ChatMessage[]) => string) = 'fail',
): Replay {
  const r = startSession(sessionId, config);
  for (const m of messages) {
    append(r, m);
    const evs = compact(r);
    for (const e of evs) {
      if (e.type !== 'SummaryRequested' || onSummary === 'leave') continue;
      const req = e.data.request;
      if (onSummary === 'fail')
        command(r, { type: 'FailSummary', data: { requestId: req.requestId, reason: 'offline' } });
      else
        command(r, { type: 'CompleteSummary', data: { requestId: req.requestId, summary: onSummary(req.messages) } });
    }
  }
  return r;
}

import { computeBudget } from '../budget';
import { resolvePolicy, type PolicyOverrides } from '../model/policy';
import { buildEffectiveEntries } from '../overlay';
import { computeTailProtection, type StageContext } from '../stages';
import { counterFor } from '../tokens';

/** A stage context over plain messages (no blocks), with a history budget of `budget` tokens. */
export function stageContext(
  messages: readonly ChatMessage[],
  budget: number,
  overrides: PolicyOverrides = {},
  targetTokens?: number,
): StageContext {
  const policy = resolvePolicy(overrides);
  const counter = counterFor({ provider: 'anthropic' });
  const b = computeBudget({ contextWindow: budget, maxOutputTokens: 0 }, policy);
  const entries = buildEffectiveEntries(
    messages,
    messages.map((m) => counter.message(m)),
    [],
    (m) => counter.message(m),
  );
  return {
    sessionId: 'test',
    entries,
    originals: messages,
    counter,
    policy,
    budget: b,
    targetTokens: targetTokens ?? b.targetTokens,
    basedOnPosition: messages.length - 1,
    protection: computeTailProtection(entries, policy.tail, b.historyBudget),
  };
}

/** The context with the view's entries replaced (blocks applied, a stage's cut): its tail protection recomputed. */
export const withEntries = (ctx: StageContext, entries: StageContext['entries']): StageContext => ({
  ...ctx,
  entries,
  protection: computeTailProtection(entries, ctx.policy.tail, ctx.budget.historyBudget),
});
