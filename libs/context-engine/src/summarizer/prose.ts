/**
 * What an assistant's prose says: the decisions and findings it states, the to-do lines it lists, the questions it
 * ends on. Code (fenced or indented) is not prose.
 */

import { listItemText } from './text';

/** Words that choose (a design, a tool, an order of work): a sentence with one states a decision. */
const CHOICE =
  /\b(?:decided|decision|instead of|rather than|going with|go with|chose|choosing|opted|switch(?:ed|ing)? to|the plan is|prefer|keep (?:the|it|them|using|both)|agreed|in favou?r of)\b/i;
/** Words that may choose, or only predict or narrate (`should`, `I'll use`, `won't`, `approach`). */
const MAYBE_CHOICE = /\b(?:we'll use|I'll use|will use|approach|should|shouldn't|won't|will not|must not)\b/i;
/**
 * A finding: what the agent worked out about why something happens (`db.one throws when no row matches, so …`, `The
 * root cause is …`, `It turns out …`) — what a later step builds on and the files and commands do not say.
 */
const FINDING =
  /\b(?:because|caused by|due to|the (?:root )?cause|(?:(?:the|this) (?:issue|problem|bug|error|failure|crash) (?:is|was|comes|happens|occurs)|the fix (?:is|was))(?! (?:now )?(?:fixed|resolved|solved|gone|addressed|verified|correct|occurring|happening)\b)|turns out|which means|so the)\b/i;

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

/**
 * What a `should` or a `will` says when it chooses nothing: a hope for the change just made (`This should fix the
 * error.`, `Everything should be working now.`), the next step of a search (`First we should find the file.`, `I will
 * run the script to verify.`), the status before it (`Now that the issue is fixed, …`), or a judgement of the way so
 * far (`This piecemeal approach is a mess.`). Sentences with a word that chooses (`instead of`) or explains
 * (`because`) are kept whatever else they say.
 */
const HOPE =
  /\bshould\s+(?:now\b|(?:also\s+|still\s+|then\s+)?(?:be\s+)?(?:fix(?:ed)?|work(?:ing)?|resolved?|solved?|eliminate|help|pass(?:ing)?|succeed|good|fine|ready|done|correct)\b)/i;
const NEXT_STEP =
  /^now that\b|\b(?:we|I)\s+(?:should|will|'ll)\s+(?:first\s+|now\s+|then\s+|next\s+)?(?:find|search|look|locate|navigate|open|check|inspect|run|submit|try|verify|examine|view|scroll|go|see)\b/i;
const choosesNothing = (s: string): boolean =>
  HOPE.test(s) || NEXT_STEP.test(s) || (s.split(/\s+/).length <= 8 && !SPECIFIC.test(s) && /\bapproach\b/i.test(s));

/** An acknowledgement a sentence opens with (`You're absolutely right - …`, `Good catch, …`): not what it says. */
const ACKNOWLEDGED =
  /^(?:you(?:'re| are) (?:absolutely |totally |completely |quite )?right|good (?:catch|point|idea|call)|great (?:catch|point|idea|question)|perfect|excellent|got it)\s*[-—–,.!:]+\s*/i;

export function decisionsOf(text: string, maxLength: number): string[] {
  return proseOf(text)
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z`*_"'(])/)
    .map((s) =>
      s
        .replace(/^\s*(?:[-*•>]|\d+[.)]|#+)\s*/, '')
        .replace(/\*\*/g, '')
        .trim()
        .replace(ACKNOWLEDGED, ''),
    )
    .filter((s) => {
      if (s.length < 15 || s.length > maxLength || !isProse(s) || s.endsWith('?')) return false;
      if (/\b(?:should|will|would|must|need to|want to|to|I|is|are|was|were|that|follows)\s*:$/i.test(s)) return false;
      if (CHOICE.test(s) || FINDING.test(s)) return !/^now that\b/i.test(s);
      return MAYBE_CHOICE.test(s) && !choosesNothing(s);
    })
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

/**
 * Words that leave work to do. A bare `next` does when it opens the sentence (`Next, update the changelog.`), names
 * a piece of the work (`The next big task is WP15`) or the agent's own plan (`Let me disassemble it next.`); not as
 * the order of things the code does (`Cycle to next model`, `queued for the next turn`, `when render() is called
 * next`).
 */
const TODO_WORDS =
  /\b(?:next (?:steps?|is|up)|todo|to-do|remaining|still (?:need|to)|pending|follow[- ]ups?|not yet)\b|(?:^|[.!?:])\W*next\b|\bnext (?:\w+ )?(?:tasks?|steps?|things?|items?|phases?|parts?|milestones?|priorit(?:y|ies)|actions?|work)\b|\b(?:let me|let's|I'll|I will|we'll|we will|I'm going to|we're going to)\b.*\bnext\b/i;
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
    const sentences = line.split(/(?<=[.!?])\s+/);
    if (sentences.some((sentence) => TODO_WORDS.test(sentence))) {
      if (HEADERISH.test(line)) inList = true;
      else out.push(...sentences.filter((sentence) => TODO_WORDS.test(sentence)));
      continue;
    }
    if (inList && LIST_ITEM.test(line)) out.push(line);
    else if (!LIST_ITEM.test(line)) inList = false;
  }
  return out.map(listItemText);
}
