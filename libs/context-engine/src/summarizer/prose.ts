/**
 * What an assistant's prose says: the decisions and findings it states, the to-do lines it lists, the questions it
 * ends on. Code (fenced or indented) is not prose.
 */

const DECISION =
  /\b(?:decided|decision|instead of|rather than|going with|go with|we'll use|I'll use|will use|chose|choosing|opted|switch(?:ed|ing)? to|approach|the plan is|prefer|won't|will not|should|shouldn't|must not|keep (?:the|it|them|using|both)|agreed|in favou?r of)\b/i;
/**
 * A finding: what the agent worked out about why something happens (`db.one throws when no row matches, so …`, `The
 * root cause is …`, `It turns out …`) — what a later step builds on and the files and commands do not say.
 */
const FINDING =
  /\b(?:because|caused by|due to|the (?:root )?cause|(?:the|this) (?:issue|problem|bug|error|failure|crash) (?:is|was|comes|happens|occurs)|turns out|the fix (?:is|was)|which means|so the)\b/i;

/** Prose of an assistant message: fenced code and indented code lines removed. */
export const proseOf = (text: string): string =>
  text
    .replace(/```[\s\S]*?(?:```|$)/g, '\n')
    .split('\n')
    .filter((l) => !/^(?: {4}|\t)/.test(l))
    .join('\n');

/** Sentences that read like prose, not code: start with a letter, no statement punctuation at the end. */
const isProse = (s: string): boolean => /^[A-Za-z`"']/.test(s) && !/[;{}]\s*$/.test(s) && !/^\w+(?:\.\w+)+\(/.test(s);

/** A name, a number, a path, a quote: what makes a sentence about this work rather than any. */
const SPECIFIC = /[`"'\d/]|[a-z][A-Z]|\w[_.]\w/;
/** A short sentence naming nothing (`That should work.`, `Take a different approach.`): a mood, not a decision. */
const saysNothing = (s: string): boolean => s.split(/\s+/).length <= 5 && !SPECIFIC.test(s);

export function decisionsOf(text: string, maxLength: number): string[] {
  return proseOf(text)
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z`*_"'(])/)
    .map((s) =>
      s
        .replace(/^\s*(?:[-*•>]|\d+[.)]|#+)\s*/, '')
        .replace(/\*\*/g, '')
        .trim(),
    )
    .filter(
      (s) =>
        s.length >= 15 &&
        s.length <= maxLength &&
        isProse(s) &&
        (DECISION.test(s) || FINDING.test(s)) &&
        !s.endsWith('?') &&
        !/\b(?:should|will|would|must|need to|want to|to|I|is|are|was|were|that|follows)\s*:$/i.test(s),
    )
    .map((s) => s.replace(/^(?:now,? )?(?:let me |let's |i'll )/i, '').replace(/:$/, '.'))
    .filter((s) => !saysNothing(s))
    .map((s) => s.charAt(0).toUpperCase() + s.slice(1));
}

/** Questions the assistant ended on: the conversation waits for the user's answer. */
export function closingQuestionsOf(text: string): string[] {
  const sentences = proseOf(text)
    .split(/\n+|(?<=[.!?])\s+/)
    .map((s) =>
      s
        .replace(/^\s*(?:[-*•>]|\d+[.)]|#+)\s*/, '')
        .replace(/\*\*/g, '')
        .trim(),
    )
    .filter((s) => s !== '');
  const tail = sentences.slice(-3);
  return tail.filter((s) => s.endsWith('?') && isProse(s));
}

const TODO_WORDS =
  /\b(?:next(?: steps?| is| up)?|todo|to-do|remaining|still (?:need|to)|pending|follow[- ]ups?|not yet)\b/i;
const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)])\s+/;
/** A heading: Markdown's `#`, a line ending in a colon, or a line all bold (`**Next steps (WP17-WP20):**`). */
const HEADERISH = /^\s*#+\s|:\s*(?:\*\*|__)?\s*$|^\s*(?:\*\*|__)[^*_]+(?:\*\*|__)\s*$/;

export function todoLinesOf(text: string): string[] {
  const out: string[] = [];
  let inList = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (/^[-*]\s*\[ \]/.test(line)) {
      out.push(line.replace(/^[-*]\s*\[ \]\s*/, ''));
      continue;
    }
    if (TODO_WORDS.test(line)) {
      if (HEADERISH.test(line)) inList = true;
      else out.push(...line.split(/(?<=[.!?])\s+/).filter((sentence) => TODO_WORDS.test(sentence)));
      continue;
    }
    if (inList && LIST_ITEM.test(line)) out.push(line);
    else if (!LIST_ITEM.test(line)) inList = false;
  }
  return out.map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').replace(/\*\*/g, ''));
}
