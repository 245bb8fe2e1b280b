import type { ChatMessage, ToolCall } from '../model/message';

/**
 * Tool-pair validity, the way providers check it: an assistant message with tool calls opens a batch,
 * and the contiguous run of `tool` messages right after it must answer each call exactly once, in any
 * order. Results without a `toolCallId` (legacy transcripts) are paired positionally with the batch's
 * calls that no id'd result claimed.
 */
export type ToolPairViolation =
  /** A tool result with no call in an earlier assistant message (or an id-less result no call is left for). */
  | { readonly kind: 'orphan-result'; readonly index: number; readonly toolCallId?: string }
  /** A tool result whose call only appears in a later assistant message. */
  | {
      readonly kind: 'result-before-call';
      readonly index: number;
      readonly toolCallId: string;
      readonly callMessageIndex: number;
    }
  /** A second result for a call that already has one; the first is the one that counts. */
  | {
      readonly kind: 'duplicate-result';
      readonly index: number;
      readonly toolCallId?: string;
      readonly firstResultIndex: number;
    }
  /** The call's only result, but not in the run of tool messages right after the call's assistant message. */
  | {
      readonly kind: 'displaced-result';
      readonly index: number;
      readonly toolCallId: string;
      readonly callMessageIndex: number;
    }
  /**
   * A call no result answers. `pending` when its batch ends the history (a tool still running):
   * `findToolPairViolations(…, { allowPendingTail: true })` leaves those out.
   */
  | {
      readonly kind: 'missing-result';
      readonly callMessageIndex: number;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly pending: boolean;
    }
  /** A call reusing the id of an earlier call of the session. */
  | {
      readonly kind: 'duplicate-call-id';
      readonly callMessageIndex: number;
      readonly toolCallId: string;
      readonly firstCallMessageIndex: number;
    };

export interface ToolPairOptions {
  /**
   * When the history ends with a batch whose calls are not (all) answered yet — the agent is running the
   * tool — treat those calls as in flight: not a violation, no synthetic result. Default false.
   */
  readonly allowPendingTail?: boolean;
  /**
   * The text of a synthetic result (`repairToolPairs`): for a call no result answers, and for one of the final
   * batch still waiting for its result (`pending`). Default SYNTHETIC_TOOL_RESULT for both.
   */
  readonly syntheticResult?: { readonly missing?: string; readonly pending?: string };
}

export interface ToolPairRepair {
  readonly messages: ChatMessage[];
  /** Results with no earlier call (including results placed before their call). */
  readonly orphanResultsRemoved: number;
  readonly missingResultsSynthesized: number;
  readonly duplicateResultsRemoved: number;
  /** Results found after their batch had closed, moved back to the end of their batch. */
  readonly displacedResultsMoved: number;
  /** Calls reusing an earlier call's id, given a fresh id (with the result that answers them). */
  readonly duplicateCallIdsRenamed: number;
  readonly changed: boolean;
}

export const SYNTHETIC_TOOL_RESULT = '[Tool result unavailable: the conversation was compacted]';

interface Slot {
  readonly batchIndex: number;
  readonly call: ToolCall;
  /** The id as written, '' when the call has none. */
  readonly id: string;
  /** The id in repaired output (differs from `id` only for a duplicate call id). */
  finalId: string;
  resultIndex?: number;
  displaced: boolean;
}

interface Batch {
  readonly index: number;
  readonly slots: Slot[];
  /** Index of the last message of the batch's run of tool messages (the assistant itself when none). */
  readonly end: number;
}

type Removal = 'orphan' | 'duplicate';

interface Analysis {
  readonly batches: Batch[];
  readonly removals: Map<number, Removal>;
  /** Tool message index → the slot it answers, for every result that survives (in place or relocated). */
  readonly answers: Map<number, Slot>;
  readonly violations: ToolPairViolation[];
  readonly renamed: number;
}

const idOf = (m: ChatMessage): string => m.toolCallId ?? '';

function analyze(messages: readonly ChatMessage[], options: ToolPairOptions): Analysis {
  const n = messages.length;
  const firstCallIndexById = new Map<string, number>();
  const allIds = new Set<string>();
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    for (const call of m.toolCalls ?? []) {
      allIds.add(call.id);
      if (call.id !== '' && !firstCallIndexById.has(call.id)) firstCallIndexById.set(call.id, i);
    }
  });

  const batches: Batch[] = [];
  const slotsById = new Map<string, Slot[]>();
  const removals = new Map<number, Removal>();
  const answers = new Map<number, Slot>();
  const violations: { at: number; v: ToolPairViolation }[] = [];
  let renamed = 0;

  const freshId = (id: string): string => {
    for (let k = 2; ; k++) {
      const candidate = `${id}_dup${k}`;
      if (!allIds.has(candidate)) {
        allIds.add(candidate);
        return candidate;
      }
    }
  };

  const answer = (slot: Slot, index: number, displaced: boolean): void => {
    slot.resultIndex = index;
    slot.displaced = displaced;
    answers.set(index, slot);
  };

  const orphan = (index: number, id: string): void => {
    removals.set(index, 'orphan');
    const later = id === '' ? undefined : firstCallIndexById.get(id);
    if (later !== undefined && later > index) {
      violations.push({ at: index, v: { kind: 'result-before-call', index, toolCallId: id, callMessageIndex: later } });
    } else {
      violations.push({ at: index, v: { kind: 'orphan-result', index, ...(id === '' ? {} : { toolCallId: id }) } });
    }
  };

  const duplicate = (index: number, id: string, firstResultIndex: number): void => {
    removals.set(index, 'duplicate');
    violations.push({
      at: index,
      v: { kind: 'duplicate-result', index, ...(id === '' ? {} : { toolCallId: id }), firstResultIndex },
    });
  };

  /** A result outside its call's run: answer an earlier unanswered call with its id, or drop it. */
  const foreign = (index: number): void => {
    const id = idOf(messages[index]);
    if (id === '') return orphan(index, id);
    const earlier = slotsById.get(id) ?? [];
    const open = earlier.find((s) => s.resultIndex === undefined);
    if (open) {
      answer(open, index, true);
      violations.push({
        at: index,
        v: { kind: 'displaced-result', index, toolCallId: id, callMessageIndex: open.batchIndex },
      });
      return;
    }
    const answered = earlier.find((s) => s.resultIndex !== undefined);
    if (answered?.resultIndex !== undefined) return duplicate(index, id, answered.resultIndex);
    orphan(index, id);
  };

  let i = 0;
  while (i < n) {
    const m = messages[i];
    if (m.role === 'assistant' && (m.toolCalls?.length ?? 0) > 0) {
      const slots: Slot[] = [];
      for (const call of m.toolCalls ?? []) {
        const slot: Slot = { batchIndex: i, call, id: call.id, finalId: call.id, displaced: false };
        if (call.id !== '') {
          const same = slotsById.get(call.id);
          if (same) {
            slot.finalId = freshId(call.id);
            renamed++;
            violations.push({
              at: i,
              v: {
                kind: 'duplicate-call-id',
                callMessageIndex: i,
                toolCallId: call.id,
                firstCallMessageIndex: same[0].batchIndex,
              },
            });
            same.push(slot);
          } else {
            slotsById.set(call.id, [slot]);
          }
        }
        slots.push(slot);
      }
      let j = i + 1;
      while (j < n && messages[j].role === 'tool') j++;
      // Results with ids claim their calls first; id-less ones then take the remaining calls in order.
      for (let k = i + 1; k < j; k++) {
        const id = idOf(messages[k]);
        if (id === '') continue;
        const open = slots.find((s) => s.id === id && s.resultIndex === undefined);
        if (open) {
          answer(open, k, false);
          continue;
        }
        const answered = slots.find((s) => s.id === id);
        if (answered?.resultIndex !== undefined) duplicate(k, id, answered.resultIndex);
        else foreign(k);
      }
      for (let k = i + 1; k < j; k++) {
        if (idOf(messages[k]) !== '') continue;
        const open = slots.find((s) => s.resultIndex === undefined);
        if (open) answer(open, k, false);
        else orphan(k, '');
      }
      batches.push({ index: i, slots, end: j - 1 });
      i = j;
      continue;
    }
    if (m.role === 'tool') foreign(i);
    i++;
  }

  const last = batches[batches.length - 1];
  for (const batch of batches) {
    const pending = batch === last && batch.end === n - 1;
    for (const slot of batch.slots) {
      if (slot.resultIndex !== undefined) continue;
      if (pending && options.allowPendingTail) continue;
      violations.push({
        at: batch.index,
        v: {
          kind: 'missing-result',
          callMessageIndex: batch.index,
          toolCallId: slot.id,
          toolName: slot.call.name,
          pending,
        },
      });
    }
  }

  violations.sort((a, b) => a.at - b.at);
  return { batches, removals, answers, violations: violations.map((x) => x.v), renamed };
}

/** Every tool-pair problem of a history, in message order. An empty list means providers will accept the pairing. */
export function findToolPairViolations(
  messages: readonly ChatMessage[],
  options: ToolPairOptions = {},
): ToolPairViolation[] {
  return analyze(messages, options).violations;
}

/**
 * For each message, the id of the call it answers when it is a tool result that pairs with a call
 * (id-less legacy results get their positional partner's id); undefined otherwise. Renderers use it to
 * give every provider-side tool result an id.
 */
export function resolveToolResultCallIds(messages: readonly ChatMessage[]): (string | undefined)[] {
  const { answers } = analyze(messages, {});
  return messages.map((_, i) => answers.get(i)?.id);
}

/**
 * The safety net after any compaction: makes the history's tool pairing valid while changing as little
 * as possible. Orphan and duplicate results are removed (the first result of a call survives), results
 * found after their batch closed are moved back to it, calls left without a result get a synthetic one
 * right after the last result of their batch, and reused call ids are renamed. A valid history comes back
 * as the same message objects in the same order, with `changed: false`.
 */
export function repairToolPairs(messages: readonly ChatMessage[], options: ToolPairOptions = {}): ToolPairRepair {
  const analysis = analyze(messages, options);
  if (analysis.violations.length === 0) {
    return {
      messages: [...messages],
      orphanResultsRemoved: 0,
      missingResultsSynthesized: 0,
      duplicateResultsRemoved: 0,
      displacedResultsMoved: 0,
      duplicateCallIdsRenamed: 0,
      changed: false,
    };
  }

  const { batches, removals, answers } = analysis;
  const n = messages.length;
  const batchAt = new Map(batches.map((b) => [b.index, b]));
  const batchEndingAt = new Map<number, Batch[]>();
  for (const b of batches) batchEndingAt.set(b.end, [...(batchEndingAt.get(b.end) ?? []), b]);
  const lastBatch = batches[batches.length - 1];

  const withResultId = (m: ChatMessage, slot: Slot | undefined): ChatMessage =>
    slot && slot.finalId !== slot.id && idOf(m) !== '' ? { ...m, toolCallId: slot.finalId } : m;

  const out: ChatMessage[] = [];
  let orphans = 0;
  let duplicates = 0;
  let moved = 0;
  let synthesized = 0;

  for (let i = 0; i < n; i++) {
    const m = messages[i];
    const removal = removals.get(i);
    const slot = answers.get(i);
    if (removal === 'orphan') orphans++;
    else if (removal === 'duplicate') duplicates++;
    else if (slot?.displaced) {
      // emitted at the end of its batch
    } else {
      const batch = batchAt.get(i);
      if (batch && batch.slots.some((s) => s.finalId !== s.id)) {
        out.push({
          ...m,
          toolCalls: batch.slots.map((s) => (s.finalId === s.id ? s.call : { ...s.call, id: s.finalId })),
        });
      } else {
        out.push(withResultId(m, slot));
      }
    }

    for (const batch of batchEndingAt.get(i) ?? []) {
      const pending = batch === lastBatch && batch.end === n - 1 && options.allowPendingTail === true;
      for (const s of batch.slots) {
        if (s.resultIndex !== undefined && s.displaced) {
          out.push(withResultId(messages[s.resultIndex], s));
          moved++;
        } else if (s.resultIndex === undefined && !pending) {
          const inFlight = batch === lastBatch && batch.end === n - 1;
          const content =
            (inFlight ? options.syntheticResult?.pending : options.syntheticResult?.missing) ?? SYNTHETIC_TOOL_RESULT;
          out.push({ role: 'tool', content, toolCallId: s.finalId, toolName: s.call.name });
          synthesized++;
        }
      }
    }
  }

  return {
    messages: out,
    orphanResultsRemoved: orphans,
    missingResultsSynthesized: synthesized,
    duplicateResultsRemoved: duplicates,
    displacedResultsMoved: moved,
    duplicateCallIdsRenamed: analysis.renamed,
    changed: true,
  };
}
