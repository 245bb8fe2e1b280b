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
  // A fetch sent elsewhere (Claude Code's WebFetch: `REDIRECT DETECTED: … Redirect URL: https://…`): where to.
  const redirect = /^REDIRECT DETECTED\b[\s\S]*?\bRedirect URL:\s*(\S+)/.exec(result)?.[1];
  if (redirect !== undefined) return oneLine(`redirects to ${redirect}`, max);
  const link = URL.exec(result.slice(0, 20_000))?.[0];
  if (link) return oneLine(link, max);
  const line = result.split('\n').find((l) => /[A-Za-z]{3}/.test(l));
  return line === undefined ? undefined : oneLine(line, max);
}

/** Tags a page is made of: a command's output with a few of them is a page, not text that names a tag. */
const PAGE_TAG = /<(?:!doctype\s+html|html|head|body|title|form|a|div|p|h[1-6]|ul|li|table|br)\b[^>]*>/gi;
const textOfHtml = (html: string): string =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
const unique = (values: readonly string[]): string[] => [...new Set(values)];

/**
 * What a page a command fetched says (`curl localhost:3000/`): its title, and what the next request names — its links,
 * its forms and their fields (`page "Perl Examples"; links /cgi-bin/hello.pl, /cgi-bin/forms.pl; form POST /login
 * (user, pass)`) — or, when the request sent something (`sent`: a form posted, a file uploaded), what the page answered
 * below its forms (`page "A Simple CGI Page": Your name is test. You are 123 years old.`). Undefined for output that
 * is no page.
 */
export function pageGist(text: string, sent: boolean, max = 200): string | undefined {
  const html = text.slice(0, 100_000);
  if ((html.match(PAGE_TAG) ?? []).length < 3) return undefined;
  const title = textOfHtml(
    /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1] ?? '',
  );
  const named = title ? `page "${oneLine(title, 60)}"` : 'page';
  // What it says, below its last form (a form's labels are no answer), without its scripts and styles.
  const body = /<body\b[^>]*>([\s\S]*)/i.exec(html)?.[1] ?? html;
  const formEnd = body.toLowerCase().lastIndexOf('</form>');
  const below = formEnd < 0 ? body : body.slice(formEnd + '</form>'.length);
  const said = textOfHtml(below.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' '));
  if (sent && said !== '') return oneLine(`${named}: ${said}`, max);
  const links = unique([...html.matchAll(/<a\b[^>]*?\bhref\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!.trim())).filter(
    (href) => !/^(?:#|javascript:|mailto:)/i.test(href),
  );
  const forms = [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)(?:<\/form>|$)/gi)].map(([, attrs, inner]) => {
    const method = /\bmethod\s*=\s*["']?(\w+)/i.exec(attrs!)?.[1]?.toUpperCase() ?? 'GET';
    const action = /\baction\s*=\s*["']([^"']+)["']/i.exec(attrs!)?.[1];
    const fields = unique(
      [...inner!.matchAll(/<(?:input|select|textarea)\b[^>]*?\bname\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!),
    );
    return `form ${method}${action ? ` ${action}` : ''}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`;
  });
  const offers = [...(links.length > 0 ? [`links ${links.slice(0, 8).join(', ')}`] : []), ...unique(forms).slice(0, 2)];
  if (offers.length === 0) return said === '' ? named : oneLine(`${named}: ${said}`, max);
  return oneLine([named, ...offers].join('; '), max);
}
