import type { ChatMessage } from '@ctxledger/context-engine';

/**
 * An agent session as one long user turn: a request, then steps of a tool call (reads, test runs, an edit) and its
 * result, with a failing test run that a later edit fixes. Deterministic; `outputLines` sizes each result.
 */
export function agentTurn(steps: number, outputLines = 12): ChatMessage[] {
  const files = ['src/parser/tokenize.ts', 'src/parser/parse.ts', 'src/lexer/scan.ts', 'src/index.ts'];
  const msgs: ChatMessage[] = [
    { role: 'user', content: 'The parser tests fail on main. Find out why and fix it; keep the public API unchanged.' },
  ];
  for (let s = 0; s < steps; s++) {
    const id = `call-${s}`;
    const file = files[s % files.length]!;
    let call: { name: string; args: Record<string, unknown>; result: string; isError?: boolean };
    if (s % 4 === 1) {
      const failing = s < steps / 2;
      call = {
        name: 'bash',
        args: { command: `npm test -- ${file.replace(/\.ts$/, '.spec.ts')}` },
        result: failing
          ? `FAIL ${file}\n  TypeError: Cannot read properties of undefined (reading 'length')\n    at ${file}:42:17\nTests: 1 failed, 12 passed\nexit code 1`
          : `PASS ${file}\nTests: 13 passed, 13 total\nexit code 0`,
        isError: failing,
      };
    } else if (s % 4 === 3) {
      call = {
        name: 'edit',
        args: { path: file, old: 'input.length', new: '(input ?? "").length' },
        result: `Edited ${file}: 1 line changed`,
      };
    } else {
      const lines = Array.from(
        { length: outputLines },
        (_, i) => `${i + 1}\texport const value${s}_${i} = compute${i}(input);`,
      );
      call = { name: 'read', args: { path: file }, result: lines.join('\n') };
    }
    msgs.push(
      {
        role: 'assistant',
        content: `Step ${s}: ${call.name} on ${file}.`,
        toolCalls: [{ id, name: call.name, arguments: JSON.stringify(call.args) }],
      },
      {
        role: 'tool',
        toolCallId: id,
        toolName: call.name,
        content: call.result,
        ...(call.isError ? { isError: true } : {}),
      },
    );
  }
  return msgs;
}
