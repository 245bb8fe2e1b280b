/**
 * Content classifier for the token estimate: splits a text into the segments a BPE tokenizer's pre-tokenizer
 * produces (words, digit groups, punctuation runs, whitespace runs, line breaks, opaque ids, non-ASCII characters)
 * and counts them by kind. A profile prices each kind in tokens (estimate.ts).
 *
 * Why segments rather than characters: a BPE token never crosses a pre-token boundary, so the number of boundaries
 * is what separates prose (one token per word, ~4-5 chars) from code and JSON (a token per identifier piece, per
 * punctuation run, per line break: ~2.5-3.5 chars) and from hashes or base64 (~1.5 chars per token).
 *
 * One pass over the string, a constant amount of work per character, no allocation (the counts go into a caller's
 * array), no regular expressions.
 */

/** The kinds of segments, in the order of the counts array. */
export const SEGMENT_KINDS = [
  /** A piece of a letter run: runs split at camelCase humps and at letter/digit changes; a leading space joins it. */
  'word',
  /** Letters of a word piece beyond the 8th: long rare words and identifiers split into several tokens. */
  'longWordLetter',
  /** A group of up to 3 digits. */
  'digitGroup',
  /** A run of ASCII punctuation or symbols (`);`, `":"`, `=>`, a single `.` or `/` before a word). */
  'punct',
  /** A backslash escape in the text (`\n`, `\"`, `\\`, `\t` as two characters, e.g. in JSON or string literals). */
  'escape',
  /** A run of 2+ spaces or tabs (indentation, padding), or spaces before a line break or at the end. */
  'spaceRun',
  /** A run of line breaks. */
  'lineBreak',
  /** A character of an opaque alphanumeric run: hex, base64, hashes, random ids (frequent letter/digit/case changes). */
  'opaqueChar',
  /** A CJK ideograph, kana, Hangul syllable or full-width form. */
  'cjk',
  /** An accented Latin letter (Latin-1 Supplement, Latin Extended-A/B, Vietnamese); it stays part of its word. */
  'accented',
  /** A letter of an alphabetic script: Greek, Cyrillic, Armenian, Hebrew, Arabic. */
  'script',
  /** Any other non-ASCII character: symbols, arrows, box drawing, typographic punctuation, rarer scripts. */
  'symbol',
  /** The same non-ASCII symbol repeated (`────`, `━━━━`): BPE vocabularies merge such runs. */
  'symbolRepeat',
  /** A character outside the Basic Multilingual Plane (emoji, rare ideographs): several byte-level tokens. */
  'astral',
] as const;

export type SegmentKind = (typeof SEGMENT_KINDS)[number];
export type SegmentRates = Readonly<Record<SegmentKind, number>>;
export const SEGMENT_KIND_COUNT = SEGMENT_KINDS.length;

/**
 * Base rates, tokens per segment: a least-squares fit of the segment counts to the exact cl100k_base count
 * (js-tiktoken) over ~2 400 texts, weighted by 1 / count: a deterministic sample of the repo's node_modules
 * (Markdown, changelogs, JS, TS, .d.ts, JSON, some minified JS and source maps, package-lock.json, TypeScript's
 * diagnostic messages in 10 languages) and the message texts of ../shared/data (`npx tsx tools/calibrate-tokens.ts
 * --fit`); `opaqueChar` is fixed at cl100k's rate on random hex / alphanumeric / base64 strings (0.56-0.68).
 * Per-text MAPE against cl100k: 3-5 % on Markdown, code, JSON; 6 % on the session texts. Fitted on node_modules
 * alone, it is within −1..+5 % on the (then unseen) session texts. Weak spots: German compounds (−18 %), source
 * maps (−27 %), minified JS (+9 %).
 * The profiles scale these for their tokenizer (estimate.ts); they also decide, at reference cost, whether an
 * alphanumeric run reads as opaque or as pieces.
 */
export const BASE_SEGMENT_TOKENS: SegmentRates = {
  word: 0.96,
  longWordLetter: 0.25,
  digitGroup: 1.25,
  punct: 0.89,
  escape: 0.94,
  spaceRun: 0.55,
  lineBreak: 0.6,
  opaqueChar: 0.6,
  cjk: 0.99,
  accented: 2.09,
  script: 0.42,
  symbol: 1.33,
  symbolRepeat: 0.73,
  astral: 3.36,
};

// Indexes into the counts array (SEGMENT_KINDS order).
const WORD = 0;
const LONG_WORD_LETTER = 1;
const DIGIT_GROUP = 2;
const PUNCT = 3;
const ESCAPE = 4;
const SPACE_RUN = 5;
const LINE_BREAK = 6;
const OPAQUE_CHAR = 7;
const CJK = 8;
const ACCENTED = 9;
const SCRIPT = 10;
const SYMBOL = 11;
const SYMBOL_REPEAT = 12;
const ASTRAL = 13;

// Character classes.
const C_LOWER = 0;
const C_UPPER = 1;
const C_DIGIT = 2;
const C_SPACE = 3;
const C_BREAK = 4;
const C_PUNCT = 5;
const C_OTHER = 6;
const C_END = 7;

// Runs (a run is a maximal sequence of characters of one group).
const R_NONE = 0;
const R_ALNUM = 1;
const R_PUNCT = 2;
const R_SPACE = 3;
const R_BREAK = 4;
const R_OTHER = 5;
const R_END = 6;
const RUN_OF_CLASS = [R_ALNUM, R_ALNUM, R_ALNUM, R_SPACE, R_BREAK, R_PUNCT, R_OTHER, R_END];

const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_CLASS[c] =
    c >= 97 && c <= 122
      ? C_LOWER
      : c >= 65 && c <= 90
        ? C_UPPER
        : c >= 48 && c <= 57
          ? C_DIGIT
          : c === 32 || c === 9
            ? C_SPACE
            : c === 10 || c === 13
              ? C_BREAK
              : C_PUNCT;
}

/** JSON string escapes: the character each stands for (`\b`, `\f` as a control character), -1 if none. */
const JSON_ESCAPE = new Int16Array(128).fill(-1);
for (const [e, c] of [
  ['n', 10],
  ['t', 9],
  ['r', 13],
  ['"', 34],
  ['\\', 92],
  ['/', 47],
  ['b', 8],
  ['f', 12],
] as const) {
  JSON_ESCAPE[e.charCodeAt(0)] = c;
}

/** Letters in a word piece that a vocabulary usually covers with one token. */
const WORD_PIECE_CHARS = 8;
/** An alphanumeric run this long whose kind (lower/upper/digit) changes at least every 4 characters is opaque. */
const OPAQUE_MIN_CHARS = 10;

const hexDigit = (c: number): number =>
  c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;

const isAccentedLatin = (c: number): boolean =>
  (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7) || (c >= 0x1e00 && c <= 0x1eff);

const isCjk = (c: number): boolean =>
  (c >= 0x3000 && c <= 0x30ff) || // CJK punctuation, hiragana, katakana
  (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
  (c >= 0xac00 && c <= 0xd7af) || // Hangul syllables
  (c >= 0xf900 && c <= 0xfaff) || // compatibility ideographs
  (c >= 0xff00 && c <= 0xffef); // half- and full-width forms

/**
 * Adds the segment counts of `text` to `out` (length SEGMENT_KIND_COUNT, indexed like SEGMENT_KINDS).
 * With `decodeJsonEscapes`, the text is JSON (a tool call's arguments) and its string escapes count as the
 * characters they stand for: `\n` is a line break, `\"` a quote, `\u00e9` an accented letter.
 */
export function scanSegments(text: string, out: Float64Array | number[], decodeJsonEscapes = false): void {
  const n = text.length;
  let run = R_NONE;
  let runLength = 0;
  // Alphanumeric run: kind of the previous character, length of the current piece, number of kind changes, and
  // the cost of its pieces, booked when the run ends unless the run turns out to be opaque.
  let kind = -1;
  let piece = 0;
  let changes = 0;
  let opaque = false;
  let words = 0;
  let longLetters = 0;
  let digitGroups = 0;
  let prevSymbol = -1;
  let i = 0;
  for (;;) {
    let c = 0;
    let cls = C_END;
    let escape = false;
    if (i < n) {
      c = text.charCodeAt(i);
      i++;
      if (c === 92 && i < n) {
        const e = text.charCodeAt(i);
        if (decodeJsonEscapes) {
          const d = e < 128 ? JSON_ESCAPE[e]! : -1;
          if (d >= 0) {
            c = d;
            i++;
          } else if (e === 117 && i + 4 < n) {
            // \uXXXX (a negative hex digit makes the whole value negative: then it stays a backslash)
            const h =
              (hexDigit(text.charCodeAt(i + 1)) << 12) |
              (hexDigit(text.charCodeAt(i + 2)) << 8) |
              (hexDigit(text.charCodeAt(i + 3)) << 4) |
              hexDigit(text.charCodeAt(i + 4));
            if (h >= 0) {
              c = h;
              i += 5;
            }
          }
        } else if (e === 110 || e === 116 || e === 114 || e === 34 || e === 92 || e === 39) {
          // \n \t \r \" \\ \' in JSON text or a string literal: one segment of its own.
          escape = true;
          i++;
        }
      }
      if (escape) cls = C_OTHER;
      else if (c < 128) cls = ASCII_CLASS[c]!;
      else if (c >= 0xdc00 && c <= 0xdfff)
        continue; // low surrogate: counted with its high surrogate
      else if (isAccentedLatin(c)) cls = C_LOWER;
      else cls = C_OTHER;
    }
    const next = RUN_OF_CLASS[cls]!;
    if (next !== run || next === R_OTHER) {
      // The current run ends; `next` is what follows it.
      switch (run) {
        case R_ALNUM:
          if (piece > 0) {
            if (kind === C_DIGIT) digitGroups += Math.ceil(piece / 3);
            else {
              words++;
              if (piece > WORD_PIECE_CHARS) longLetters += piece - WORD_PIECE_CHARS;
            }
          }
          // An opaque run is booked by the dearer of its two readings, so a run that turns opaque as it grows never
          // counts less than before.
          if (
            opaque &&
            runLength * BASE_SEGMENT_TOKENS.opaqueChar >=
              words * BASE_SEGMENT_TOKENS.word +
                digitGroups * BASE_SEGMENT_TOKENS.digitGroup +
                longLetters * BASE_SEGMENT_TOKENS.longWordLetter
          ) {
            out[OPAQUE_CHAR] += runLength;
          } else {
            out[WORD] += words;
            out[LONG_WORD_LETTER] += longLetters;
            out[DIGIT_GROUP] += digitGroups;
          }
          break;
        case R_PUNCT:
          out[PUNCT]++;
          break;
        case R_SPACE:
          // A single space (or tab) joins the segment after it (or is a negligible trailing one); spaces before a
          // line break do not.
          if (runLength > 1 || next === R_BREAK) out[SPACE_RUN]++;
          break;
        case R_BREAK:
          out[LINE_BREAK]++;
          break;
      }
      if (next === R_END) return;
      run = next;
      runLength = 0;
      kind = -1;
      piece = 0;
      changes = 0;
      opaque = false;
      words = 0;
      longLetters = 0;
      digitGroups = 0;
    }
    runLength++;
    if (next === R_ALNUM) {
      if (kind >= 0 && cls !== kind && !(kind === C_UPPER && cls === C_LOWER)) {
        // A new piece: lower→upper (camelCase hump) or a letter/digit change.
        changes++;
        if (kind === C_DIGIT) digitGroups += Math.ceil(piece / 3);
        else {
          words++;
          if (piece > WORD_PIECE_CHARS) longLetters += piece - WORD_PIECE_CHARS;
        }
        piece = 0;
      }
      piece++;
      kind = cls;
      // Once a prefix of the run reads as opaque, the run stays opaque (the count never drops as a run grows).
      if (runLength >= OPAQUE_MIN_CHARS && changes * 4 >= runLength) opaque = true;
      if (c >= 128) out[ACCENTED]++;
    } else if (next === R_OTHER) {
      if (escape) out[ESCAPE]++;
      else if (c >= 0xd800 && c <= 0xdbff) out[ASTRAL]++;
      else if (isCjk(c)) out[CJK]++;
      else if (c >= 0x370 && c <= 0x6ff) out[SCRIPT]++;
      else if (c === prevSymbol) out[SYMBOL_REPEAT]++;
      else out[SYMBOL]++;
      prevSymbol = escape ? -1 : c;
      continue;
    }
    prevSymbol = -1;
  }
}

/** The segment counts of a text by kind (allocates: for tools and tests; the estimate uses scanSegments). */
export function segmentCounts(text: string, decodeJsonEscapes = false): Record<SegmentKind, number> {
  const counts = new Array<number>(SEGMENT_KIND_COUNT).fill(0);
  scanSegments(text, counts, decodeJsonEscapes);
  return Object.fromEntries(SEGMENT_KINDS.map((k, i) => [k, counts[i]!])) as Record<SegmentKind, number>;
}
