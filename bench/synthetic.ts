/**
 * Deterministic synthetic agent sessions for the engine benchmark: user asks, assistant steps with tool
 * calls (15% parallel batches of 2-4), tool results of mixed size (reads of a few hot files again and again,
 * 1% huge outputs of 30-60k chars, some failing commands), text replies closing each turn.
 */
import type { ChatMessage } from '@ctxledger/context-engine';

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'the engine session budget tool result message compaction summary turn window token read write edit test build fix error config handler index kafka ledger'.split(
    ' ',
  );
const CODE = [
  'export function handle(event: SessionEvent): void {',
  '  const state = evolve(current, event);',
  '  if (state.pending) return;',
  '  for (const block of blocks) apply(block);',
  '}',
  "import { decide } from './decider';",
  'const total = items.reduce((a, b) => a + b.tokens, 0);',
];

function prose(rnd: () => number, chars: number): string {
  let s = '';
  while (s.length < chars) s += `${WORDS[Math.floor(rnd() * WORDS.length)]}${rnd() < 0.08 ? '.\n' : ' '}`;
  return s.slice(0, chars);
}

function code(rnd: () => number, chars: number): string {
  let s = '';
  let line = 1;
  while (s.length < chars) s += `${line++}: ${CODE[Math.floor(rnd() * CODE.length)]}\n`;
  return s.slice(0, chars);
}

/** A deterministic agent session of exactly `n` messages. */
export function syntheticSession(n: number, seed: number): ChatMessage[] {
  const rnd = prng(seed);
  const out: ChatMessage[] = [];
  const files = Array.from({ length: 40 }, (_, i) => `src/module-${i}/file-${i}.ts`);
  let call = 0;
  const push = (m: ChatMessage) => {
    if (out.length < n) out.push(m);
  };
  while (out.length < n) {
    push({ role: 'user', content: prose(rnd, 60 + Math.floor(rnd() * 400)) });
    const steps = 1 + Math.floor(rnd() * 6);
    for (let s = 0; s < steps && out.length < n; s++) {
      const parallel = rnd() < 0.15 ? 2 + Math.floor(rnd() * 3) : 1;
      const calls = Array.from({ length: parallel }, () => {
        const kind = rnd();
        const path = files[Math.floor(rnd() * (rnd() < 0.5 ? 6 : files.length))]!; // some files are read again and again
        const id = `call_${seed}_${call++}`;
        if (kind < 0.45) return { id, name: 'read', arguments: JSON.stringify({ path }) };
        if (kind < 0.8) return { id, name: 'bash', arguments: JSON.stringify({ command: `npm test -- ${path}` }) };
        return {
          id,
          name: 'edit',
          arguments: JSON.stringify({ path, oldText: prose(rnd, 80), newText: prose(rnd, 90) }),
        };
      });
      push({
        role: 'assistant',
        content: rnd() < 0.5 ? prose(rnd, 40 + Math.floor(rnd() * 200)) : '',
        toolCalls: calls,
      });
      for (const c of calls) {
        const huge = rnd() < 0.01;
        const size = huge ? 30_000 + Math.floor(rnd() * 30_000) : 100 + Math.floor(rnd() * rnd() * 6000);
        const body =
          c.name === 'read'
            ? code(rnd, size)
            : c.name === 'bash'
              ? `${prose(rnd, size)}\n${rnd() < 0.2 ? 'Error: test failed\nexit code 1' : 'ok'}`
              : 'Edited.';
        push({ role: 'tool', content: body, toolCallId: c.id, toolName: c.name });
      }
    }
    push({ role: 'assistant', content: prose(rnd, 80 + Math.floor(rnd() * 600)) });
  }
  return out;
}

/**
 * A long-window session's worst case for the focused truncation: `outputs` tool results of ~0.9 MB (a build log,
 * 12,000 numbered lines), each followed by a write of 2,000 lines — `quoting` them from the log, or naming 6,000
 * identifiers the log does not have — then `filler` pairs of reads. Every output is over the truncation limits, so
 * the compaction that the filler triggers truncates each of them, reading its reaction for the lines that mattered.
 */
export function hugeOutputSession(outputs: number, quoting: boolean, filler: number): ChatMessage[] {
  const out: ChatMessage[] = [{ role: 'user', content: 'Build it and fix what fails.' }];
  for (let k = 0; k < outputs; k++) {
    const log = Array.from(
      { length: 12_000 },
      (_, i) => `${i + 1}: [step ${k}] compiled module_${i % 500}/unit_${i}.ts in ${(i * 7) % 97} ms (cache ${i % 3})`,
    );
    const content = quoting
      ? log.slice(6000, 8000).join('\n')
      : Array.from({ length: 2000 }, (_, i) => `const renamed${k}_${i} = helperNumber${i}(argumentValue${i});`).join(
          '\n',
        );
    out.push(
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `b${k}`, name: 'bash', arguments: '{"command":"make all"}' }],
      },
      { role: 'tool', toolCallId: `b${k}`, toolName: 'bash', content: log.join('\n') },
      {
        role: 'assistant',
        content: `Writing the fix for step ${k}.`,
        toolCalls: [{ id: `w${k}`, name: 'write', arguments: JSON.stringify({ path: `src/fix_${k}.ts`, content }) }],
      },
      { role: 'tool', toolCallId: `w${k}`, toolName: 'write', content: `Wrote src/fix_${k}.ts` },
    );
  }
  for (let k = 0; k < filler; k++) {
    const body = Array.from({ length: 400 }, (_, i) => `${i + 1}\texport const value_${k}_${i} = ${i * k};`).join('\n');
    out.push(
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `r${k}`, name: 'read', arguments: `{"path":"src/f${k}.ts"}` }],
      },
      { role: 'tool', toolCallId: `r${k}`, toolName: 'read', content: body },
    );
  }
  return out;
}
