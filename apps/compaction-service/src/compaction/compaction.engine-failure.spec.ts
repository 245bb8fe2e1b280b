import { Logger } from '@nestjs/common';
import { runCommand } from '@ctxledger/context-engine';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { inMemoryCompactionService } from './testing/in-memory-compaction';

// The engine's runner, wrapped so that one call can fail as a fold that throws would.
jest.mock('@ctxledger/context-engine', () => {
  const actual: { runCommand: (...args: unknown[]) => unknown } = jest.requireActual('@ctxledger/context-engine');
  return { ...actual, runCommand: jest.fn(actual.runCommand) };
});
const runner = runCommand as jest.MockedFunction<typeof runCommand>;

function serviceUnderTest() {
  const { service, published, registry } = inMemoryCompactionService();
  const errors = async () =>
    (await registry.getSingleMetric('ctxledger_compactions_total')!.get()).values
      .filter((v) => v.labels['outcome'] === 'error')
      .reduce((n, v) => n + v.value, 0);
  return { service, published, errors };
}

/** A configured session, then a user request and tool calls with large outputs, one event each. */
function session(steps: number): AnyEvent[] {
  const events = [
    createEvent('session.configured', 's-f', { provider: 'openai', contextWindow: 8_000, maxOutputTokens: 0 }),
    createEvent('message.appended', 's-f', { role: 'user', content: 'Fix the failing tests in src/app.' }),
  ];
  for (let s = 0; s < steps; s++) {
    const call = { id: `c${s}`, name: 'bash', arguments: JSON.stringify({ command: `npm test -- t${s}` }) };
    events.push(
      createEvent('message.appended', 's-f', { role: 'assistant', content: `step ${s}`, toolCalls: [call] }),
      createEvent('message.appended', 's-f', {
        role: 'tool',
        toolCallId: call.id,
        toolName: 'bash',
        content: `ran t${s}\n${'output line\n'.repeat(300)}`,
      }),
    );
  }
  return events as AnyEvent[];
}

describe('CompactionService when the engine fails', () => {
  it('leaves the session as it was, counts the failure, keeps the partition going, and decides again next time', async () => {
    const events = session(12);
    const reference = serviceUnderTest();
    let first = -1; // the event whose decision creates the first block
    for (const [i, e] of events.entries()) {
      await reference.service.handle(e, { partition: 0, replay: false });
      if (first < 0 && reference.published.some((o) => o.kind === 'block.created')) first = i;
    }
    expect(first).toBeGreaterThan(1);
    expect(first).toBeLessThan(events.length - 1);

    const { service, published, errors } = serviceUnderTest();
    for (const e of events.slice(0, first)) await service.handle(e, { partition: 0, replay: false });
    const state = service.stateOf('s-f')!;
    const before = {
      messages: state.originals.length,
      active: [...state.active],
      compactions: state.guard.compactions,
    };
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    runner.mockImplementationOnce(() => {
      throw new Error('block b1 partially overlaps an active block');
    });
    await expect(service.handle(events[first]!, { partition: 0, replay: false })).resolves.toBeUndefined();
    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^engine failed on Compact for s-f: Error: block b1/));
    logged.mockRestore();
    const after = service.stateOf('s-f')!;
    expect(after.originals).toHaveLength(before.messages + 1); // the message itself is appended …
    expect(after.active).toEqual(before.active); // … but nothing the failed command decided
    expect(after.blocks.size).toBe(0);
    expect(after.guard.compactions).toBe(before.compactions);
    expect(published).toEqual([]);
    expect(await errors()).toBe(1);

    await service.handle(events[first + 1]!, { partition: 0, replay: false });
    expect(published.some((o) => o.kind === 'block.created')).toBe(true);
    expect(await errors()).toBe(1);
  });
});
