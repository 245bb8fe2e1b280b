import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChatMessage } from '@ctxledger/context-engine';

/** A developer transcript: one agent session of ../shared/data/sessions.jsonl (its README says the format). */
export interface SharedSession {
  readonly id: string;
  readonly source: string;
  readonly messages: ChatMessage[];
}

/**
 * Where the tests find the developer transcripts: `CTXLEDGER_SHARED_DATA`, else `../shared/data/sessions.jsonl`
 * beside the repository (as in CI). Every test that reads them goes through here.
 */
export const SHARED_DATA_FILE =
  process.env.CTXLEDGER_SHARED_DATA ?? resolve(__dirname, '../../../shared/data/sessions.jsonl');

/** The file's text; a missing file fails the test (never skips it) with what to do. */
export function sharedDataText(): string {
  if (!existsSync(SHARED_DATA_FILE)) {
    throw new Error(
      `the developer transcripts are missing: no ${SHARED_DATA_FILE}. The tests read real agent sessions from ` +
        '../shared/data/sessions.jsonl beside the repository; put the file there or point CTXLEDGER_SHARED_DATA at it.',
    );
  }
  return readFileSync(SHARED_DATA_FILE, 'utf8');
}

/** The sessions, one per line. */
export function sharedSessions(): SharedSession[] {
  return sharedDataText()
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as SharedSession);
}
