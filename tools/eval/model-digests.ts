/**
 * Retention with a model's digest summaries: each session's first half is replayed with digest summaries on; the
 * first request left unanswered goes to the model (through the summarizer-service's own code path: the gist
 * request the compaction service publishes, the checks, no offline fallback), its answer joins the replay's
 * answers, and the replay runs again, until every request of the session is answered. An answer is given at once
 * (before the next message), as the eval's offline summaries are. Slow: one model call per request.
 */
import type { SummaryRequest } from '@ctxledger/context-engine';
import { summaryRequestData } from '../../apps/compaction-service/src/compaction/event-publisher';
import type { ProviderSettings } from '../../apps/summarizer-service/src/config/summarizer-settings';
import { createLlmClient } from '../../apps/summarizer-service/src/providers/llm-clients';
import { Summarizer } from '../../apps/summarizer-service/src/summarization/summarizer';
import { parseTranscripts } from '../replay/input';
import type { DigestAnswer } from '../replay/replay';
import {
  asOneTurn,
  evaluateSession,
  totalsOf,
  unansweredDigestRequests,
  type EvalOptions,
  type RetentionReport,
  type SessionRetention,
} from './retention';

export interface ModelDigestOptions {
  readonly modelPath: string;
  readonly threads: number;
  readonly contextSize: number;
  readonly timeoutMs: number;
  /** Evaluate at most this many sessions (in file order, after the short ones are skipped). */
  readonly maxSessions?: number;
  readonly log?: (line: string) => void;
}

export interface ModelDigestReport extends RetentionReport {
  readonly model: {
    readonly calls: number;
    readonly completed: number;
    readonly failed: number;
    readonly superseded: number;
    readonly seconds: number;
  };
}

/** The local model as the summarizer-service runs it (SUMMARIZER_PROVIDER=local, fallback none, one attempt). */
function localAnswerer(o: ModelDigestOptions) {
  const settings: ProviderSettings = {
    provider: 'local',
    defaultModel: 'local',
    contextWindow: o.contextSize,
    maxConcurrency: 1,
    local: { modelPath: o.modelPath, threads: o.threads, contextSize: o.contextSize },
  };
  const client = createLlmClient(settings);
  const summarizer = new Summarizer({
    settings: {
      defaultProvider: 'local',
      fallback: 'none',
      providers: { local: settings },
      timeoutMs: o.timeoutMs,
      retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 100 },
      outputHeadroomTokens: 0,
    },
    clients: { local: client },
  });
  const answer = async (request: SummaryRequest): Promise<DigestAnswer> => {
    const data = summaryRequestData(request);
    const outcome = await summarizer.summarize({
      requestId: data.requestId,
      messages: data.messages,
      ...(data.previousSummary !== undefined && { previousSummary: data.previousSummary }),
      maxSummaryTokens: data.maxSummaryTokens,
      ...(data.form !== undefined && { form: data.form }),
    });
    return outcome.kind === 'completed'
      ? { summary: outcome.summary, provider: outcome.provider }
      : { failed: outcome.reason };
  };
  return { answer, close: () => (client as { close?: () => Promise<void> }).close?.() };
}

export async function evaluateWithModelDigests(
  text: string,
  options: EvalOptions,
  o: ModelDigestOptions,
): Promise<ModelDigestReport> {
  const log = o.log ?? (() => undefined);
  const model = localAnswerer(o);
  const sessions: SessionRetention[] = [];
  const skipped: { id: string; reason: string }[] = [];
  const tally = { calls: 0, completed: 0, failed: 0, superseded: 0, seconds: 0 };
  const withDigests: EvalOptions = { ...options, digestSummaries: true };
  try {
    for (const parsed of parseTranscripts(text)) {
      if (!parsed.ok) {
        skipped.push({ id: `line ${parsed.error.line}`, reason: `${parsed.error.field}: ${parsed.error.message}` });
        continue;
      }
      if (o.maxSessions !== undefined && sessions.length >= o.maxSessions) break;
      const session = options.oneTurn ? asOneTurn(parsed.session) : parsed.session;
      const share = (options.cuts ?? [0.5])[0]!;
      const answers = new Map<string, DigestAnswer>();
      for (;;) {
        const next = unansweredDigestRequests(session, { ...withDigests, digestAnswers: answers }, share)[0];
        if (!next) break;
        const started = performance.now();
        const answer = await model.answer(next);
        const seconds = (performance.now() - started) / 1000;
        tally.calls++;
        tally.seconds += seconds;
        if ('failed' in answer) tally.failed++;
        else tally.completed++;
        log(
          `${session.id}: request ${next.requestId} (${next.supersedes?.stage}, ${next.tokensBefore} tokens) → ${'failed' in answer ? `failed: ${answer.failed}` : 'completed'} in ${seconds.toFixed(1)} s`,
        );
        answers.set(next.requestId, answer);
      }
      const r = evaluateSession(session, { ...withDigests, digestAnswers: answers }, share);
      if ('skipped' in r) skipped.push({ id: session.id, reason: r.skipped });
      else {
        sessions.push(r);
        tally.superseded += r.digestSummaries?.superseded ?? 0;
      }
    }
  } finally {
    await model.close();
  }
  return { options, sessions, skipped, totals: totalsOf(sessions), model: tally };
}
