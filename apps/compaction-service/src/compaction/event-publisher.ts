import { Injectable, Logger } from '@nestjs/common';
import type { ChatMessage, CompactionBlock, SummaryRequest } from '@ctxledger/context-engine';
import {
  createEvent,
  LIMITS,
  type AnyEvent,
  type SummarizerChoice,
  type SummaryRequestedData,
} from '@ctxledger/contracts';
import { EventProducer, type OutgoingRecord } from '@ctxledger/kafka';
import { runWithCorrelation } from '@ctxledger/observability';

/** What the compaction service emits; every event id is deterministic, so a re-emission is recognizable. */
export type Outgoing =
  | { readonly kind: 'block.created'; readonly source: AnyEvent; readonly block: CompactionBlock }
  | { readonly kind: 'block.reverted'; readonly source: AnyEvent; readonly blockId: string }
  | {
      readonly kind: 'summary.requested';
      readonly source: AnyEvent;
      readonly request: SummaryRequest;
      readonly summarizer?: SummarizerChoice;
    }
  | { readonly kind: 'session.paused'; readonly sessionId: string; readonly tenant: string; readonly eventId: string }
  | {
      readonly kind: 'summary.timed-out';
      readonly sessionId: string;
      readonly tenant: string;
      readonly requestId: string;
      readonly afterMs: number;
    };

/** The summary may take at most this share of what it replaces (and never more than the cap). */
const SUMMARY_SHARE = 0.25;
/**
 * A gist superseding a deterministic note may take half the note: the facts it leaves out are appended from the
 * working state, and the whole must still be smaller than the note (the engine checks).
 */
const GIST_SHARE = 0.5;
const SUMMARY_CAP_TOKENS = 8000;

/** Turns the compaction service's decisions into events, with deterministic ids, and sends them. */
@Injectable()
export class EventPublisher {
  private readonly logger = new Logger(EventPublisher.name);

  constructor(private readonly producer: EventProducer) {}

  /** Sends everything in one request; throws when Kafka does not take it. Logs one line per event sent. */
  async publish(outgoing: readonly Outgoing[]): Promise<void> {
    await this.producer.send(outgoing.map((o) => this.toRecord(o)));
    for (const o of outgoing) this.logger.log(describe(o));
  }

  /**
   * Sends the events of many handled events in order, as few requests as fit (EventProducer.sendAll), each
   * record with the correlation id of the event that decided it; throws when Kafka does not take them.
   */
  async publishAll(groups: ReadonlyArray<{ readonly outgoing: readonly Outgoing[]; readonly correlationId?: string }>) {
    const records: OutgoingRecord[] = [];
    for (const { outgoing, correlationId } of groups) {
      for (const o of outgoing) {
        const record = this.toRecord(o);
        records.push(correlationId === undefined ? record : { ...record, correlationId });
      }
    }
    if (records.length === 0) return;
    await this.producer.sendAll(records);
    for (const { outgoing, correlationId } of groups) {
      if (outgoing.length === 0) continue;
      const log = () => {
        for (const o of outgoing) this.logger.log(describe(o));
      };
      if (correlationId === undefined) log();
      else runWithCorrelation({ correlationId, sessionId: sessionIdOf(outgoing[0]!) }, log);
    }
  }

  private toRecord(o: Outgoing): OutgoingRecord {
    if (o.kind === 'summary.timed-out') {
      const event = createEvent(
        'summary.failed',
        o.sessionId,
        { requestId: o.requestId, reason: `no summary within ${o.afterMs} ms`, retryable: false },
        { tenant: o.tenant, eventId: `timeout:${o.requestId}` },
      );
      return { stream: 'sessionEvents', event };
    }
    if (o.kind === 'session.paused') {
      const event = createEvent(
        'compaction.requested',
        o.sessionId,
        { trigger: 'pause' },
        { tenant: o.tenant, eventId: o.eventId },
      );
      return { stream: 'sessionEvents', event };
    }
    const meta = {
      tenant: o.source.tenant,
      causationId: o.source.eventId,
      correlationId: o.source.correlationId ?? o.source.eventId,
    };
    switch (o.kind) {
      case 'block.created':
        return {
          stream: 'blocks',
          event: createEvent(
            'block.created',
            o.source.sessionId,
            { block: toWireBlock(o.block) },
            { ...meta, eventId: o.block.id },
          ),
        };
      case 'block.reverted':
        return {
          stream: 'blocks',
          event: createEvent(
            'block.reverted',
            o.source.sessionId,
            { blockId: o.blockId, requestedBy: o.source.eventId },
            { ...meta, eventId: `revert:${o.blockId}:${o.source.eventId}` },
          ),
        };
      case 'summary.requested':
        return {
          stream: 'summaryRequests',
          event: createEvent('summary.requested', o.source.sessionId, summaryRequestData(o.request, o.summarizer), {
            ...meta,
            eventId: o.request.requestId,
          }),
        };
    }
  }
}

function sessionIdOf(o: Outgoing): string {
  return o.kind === 'session.paused' || o.kind === 'summary.timed-out' ? o.sessionId : o.source.sessionId;
}

/** What a log line says about an emitted event (ids, stage and sizes; never message content). */
function describe(o: Outgoing): string {
  switch (o.kind) {
    case 'block.created':
      return `block.created ${o.block.id} (${o.block.stage}, positions ${o.block.range.from}-${o.block.range.to}): ${o.block.tokensBefore} → ${o.block.tokensAfter} tokens`;
    case 'block.reverted':
      return `block.reverted ${o.blockId}`;
    case 'summary.requested':
      return `summary.requested ${o.request.requestId} (positions ${o.request.range.from}-${o.request.range.to}, ${o.request.tokensBefore} tokens)`;
    case 'summary.timed-out':
      return `summary.failed ${o.requestId}: no summary within ${o.afterMs} ms`;
    case 'session.paused':
      return `compaction.requested ${o.eventId} (pause: the session is quiet)`;
  }
}

function toWireBlock(block: CompactionBlock) {
  return {
    ...block,
    range: { ...block.range },
    edits: block.edits.map((e) => ({ ...e, replacement: [...e.replacement] })),
  } as never;
}

/**
 * The request as it travels. A range whose text is over the record size limit is sent with its longest
 * tool outputs cut (head and tail kept): the summarizer needs the conversation, not every output in full.
 */
export function summaryRequestData(request: SummaryRequest, summarizer?: SummarizerChoice): SummaryRequestedData {
  const gist = request.supersedes !== undefined;
  const share = gist ? GIST_SHARE : SUMMARY_SHARE;
  const maxSummaryTokens = Math.max(64, Math.min(SUMMARY_CAP_TOKENS, Math.floor(request.tokensBefore * share)));
  let messages: ChatMessage[] = [...request.messages];
  const budget = LIMITS.maxEventBytes * 0.8;
  for (let cap = 20_000; JSON.stringify(messages).length > budget && cap >= 200; cap = Math.floor(cap / 2)) {
    messages = messages.map((m) =>
      m.role === 'tool' && m.content.length > cap ? { ...m, content: headTail(m.content, cap) } : m,
    );
  }
  return {
    requestId: request.requestId,
    range: { ...request.range },
    messages: messages as SummaryRequestedData['messages'],
    ...(request.previousSummary !== undefined && { previousSummary: request.previousSummary }),
    maxSummaryTokens,
    ...(gist && { form: 'gist' as const }),
    ...(summarizer !== undefined && { summarizer }),
  };
}

function headTail(text: string, cap: number): string {
  const half = Math.floor(cap / 2);
  return `${text.slice(0, half)}\n[… ${text.length - cap} characters cut for the summary request …]\n${text.slice(-half)}`;
}
