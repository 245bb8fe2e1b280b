/** Text helpers the summarizer's modules share. */

/** A line with its runs of white space one space, trimmed: how the lines of an output are matched to an error line. */
export const flat = (line: string): string => line.replace(/\s+/g, ' ').trim();

/** `s` on one line, at most `max` characters, cut at its end with a mark (`…`). */
export const oneLine = (s: string, max: number): string => {
  const line = flat(s);
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
};
