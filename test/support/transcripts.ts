import { sharedSessions, type SharedSession } from './shared-data';

export type Transcript = SharedSession;

/** The developer transcripts of ../shared/data (one session per line). */
export function loadTranscripts(): Transcript[] {
  return sharedSessions();
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
