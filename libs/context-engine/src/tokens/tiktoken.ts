import { getEncoding, type Tiktoken, type TiktokenEncoding } from 'js-tiktoken';
import type { Tokenizer } from './estimate';

/** The exact OpenAI encoding of a model: o200k_base for the 4o / 4.1 / 5 / o-series families, cl100k_base before. */
export function openAiEncodingFor(model?: string): TiktokenEncoding {
  const m = (model ?? '').toLowerCase().replace(/^openai\//, '');
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss)/.test(m)) return 'o200k_base';
  return 'cl100k_base';
}

// Loading an encoding's ranks costs ~100 ms; one per encoding per process (a pure, memoized table).
const encoders = new Map<TiktokenEncoding, Tiktoken>();

export function createTiktokenTokenizer(encoding: TiktokenEncoding): Tokenizer {
  let enc = encoders.get(encoding);
  if (!enc) {
    enc = getEncoding(encoding);
    encoders.set(encoding, enc);
  }
  const e = enc;
  return { name: encoding, count: (text) => e.encode(text, [], []).length };
}
