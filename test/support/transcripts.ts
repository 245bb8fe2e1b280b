import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChatMessage } from '@ctxledger/context-engine';

export interface Transcript {
  readonly id: string;
  readonly source: string;
  readonly messages: ChatMessage[];
}

/** The developer transcripts of ../shared/data (one session per line). */
export function loadTranscripts(): Transcript[] {
  const file = resolve(__dirname, '../../../shared/data/sessions.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Transcript);
}

export function transcript(idPrefix: string): Transcript {
  const found = loadTranscripts().find((t) => t.id.startsWith(idPrefix));
  if (!found) throw new Error(`no transcript ${idPrefix}`);
  return found;
}

/**
 * A transcript as the documented JSON events of one session (what any producer publishes): its configuration,
 * then every message with a clientMessageId (`m0`, `m1`, …).
 */
export function transcriptEvents(
  session: Transcript,
  sessionId: string,
  config: Record<string, unknown>,
): Array<{ type: 'session.configured' | 'message.appended'; sessionId: string; data: Record<string, unknown> }> {
  return [
    { type: 'session.configured', sessionId, data: config },
    ...session.messages.map((m, i) => ({
      type: 'message.appended' as const,
      sessionId,
      data: { ...m, clientMessageId: `m${i}` },
    })),
  ];
}
