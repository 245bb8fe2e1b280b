/** Text helpers the summarizer's modules share. */

/** A line with its runs of white space one space, trimmed: how the lines of an output are matched to an error line. */
export const flat = (line: string): string => line.replace(/\s+/g, ' ').trim();

/** The text inside the first `<tag>…</tag>` of `text`, trimmed (Claude Code's `<stdout>`, `<command-name>`). */
export const taggedText = (text: string, tag: string): string | undefined =>
  new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(text)?.[1]?.trim();

/** A list item's text: without its mark (`- `, `* `, `• `, `1. `, `2) `) and its bold (`**`). */
export const listItemText = (line: string): string => line.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').replace(/\*\*/g, '');

/** `s` on one line, at most `max` characters, cut at its end with a mark (`…`). */
export const oneLine = (s: string, max: number): string => {
  const line = flat(s);
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
};
