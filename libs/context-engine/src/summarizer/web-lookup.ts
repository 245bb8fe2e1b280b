/**
 * What a web lookup (`ToolActivity.webLookup`, `isWebTool`) asked and what it found, as notes say it.
 */
import type { ToolCall } from '../model/message';
import { oneLine } from './text';
import { parseArguments } from './tool-activity';

const QUERY_KEYS = ['query', 'q', 'search_term', 'search'];
const URL_KEYS = ['url', 'urls'];
const URL = /\bhttps?:\/\/[^\s"'<>)\]]+/;

/** The call as a line of Commands run: `WebSearch "prisma cursor pagination"`, `WebFetch https://…/api.html`. */
export function webLookupLabel(call: ToolCall): string {
  const args = parseArguments(call.arguments) ?? {};
  for (const key of URL_KEYS) {
    const v = args[key];
    const url = typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
    if (url) return `${call.name} ${oneLine(url, 120)}`;
  }
  for (const key of QUERY_KEYS) {
    const v = args[key];
    if (typeof v === 'string' && v.trim() !== '') return `${call.name} "${oneLine(v, 100)}"`;
  }
  return call.name;
}

/**
 * What a lookup found, in a few words: a search's first link (the page a later fetch or answer cites), else the first
 * line of prose of what it returned.
 */
export function webLookupGist(result: string, max = 120): string | undefined {
  const link = URL.exec(result.slice(0, 20_000))?.[0];
  if (link) return oneLine(link, max);
  const line = result.split('\n').find((l) => /[A-Za-z]{3}/.test(l));
  return line === undefined ? undefined : oneLine(line, max);
}
