import { Test, type TestingModule } from '@nestjs/testing';
import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { ENGINE_VERSION, type CompactionBlock } from '@ctxledger/context-engine';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { batchPattern, type KafkaEventBatch } from '@ctxledger/kafka';
import { messageDocumentId } from '../read-models/messages/message.document';
import {
  inMemoryAdapters,
  testPlatform,
  withInMemoryAdapters,
  type InMemoryAdapters,
} from '../testing/in-memory-wiring';
import { ProjectionHandler } from './projection.handler';
import { ProjectionProgress } from './projection-progress';
import { ProjectorModule } from './projector.module';

// The projector's Nest wiring, without Kafka or MongoDB: the real ProjectorModule, its read-model port bound to
// the in-memory read model; batches handed to the Kafka handler as the transport hands them.

const meta = (i: number, tenant = 't1') => ({
  tenant,
  eventId: `e${i}`,
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
});

const batch = (topic: string, events: AnyEvent[], first = 0, partition = 0): KafkaEventBatch => ({
  topic,
  partition,
  events,
  offsets: events.map((_, i) => String(first + i)),
});

const summaryBlock = (id: string, from: number, to: number): CompactionBlock => ({
  id,
  sessionId: 's1',
  stage: 'summary',
  range: { from, to },
  edits: [{ from, to, replacement: [{ role: 'user', content: `summary of ${from}..${to}` }] }],
  tokensBefore: 100,
  tokensAfter: 10,
  tokensSaved: 90,
  basedOnPosition: to,
  engineVersion: ENGINE_VERSION,
});

describe('ProjectorModule wiring (in-memory read model)', () => {
  let moduleRef: TestingModule;
  let adapters: InMemoryAdapters;
  let handler: ProjectionHandler;

  beforeEach(async () => {
    adapters = inMemoryAdapters();
    moduleRef = await withInMemoryAdapters(
      Test.createTestingModule({ imports: [testPlatform(), ProjectorModule] }),
      adapters,
    ).compile();
    await moduleRef.init();
    handler = moduleRef.get(ProjectionHandler);
  });

  afterEach(() => moduleRef.close());

  it("routes each stream's batches to its handler (the transport dispatches on these patterns)", () => {
    const patternsOf = (method: (batch: KafkaEventBatch) => unknown): unknown =>
      Reflect.getMetadata(PATTERN_METADATA, method);
    expect(patternsOf(ProjectionHandler.prototype.onSessionEvents)).toEqual([batchPattern('sessionEvents')]);
    expect(patternsOf(ProjectionHandler.prototype.onBlocks)).toEqual([batchPattern('blocks')]);
  });

  it('projects a batch of the session stream into the read model and tells the read side', async () => {
    const written: string[] = [];
    moduleRef.get(ProjectionProgress).onSessionsWritten((w) => written.push(...w.sessions.map((s) => s._id)));

    const result = await handler.onSessionEvents(
      batch('sessions', [
        createEvent('session.configured', 's1', { provider: 'anthropic', contextWindow: 20_000 }, meta(1)),
        createEvent('message.appended', 's1', { role: 'user', content: 'hello', clientMessageId: 'm1' }, meta(2)),
        createEvent('message.appended', 's1', { role: 'assistant', content: 'hi' }, meta(3)),
        createEvent('message.appended', 's1', { role: 'user', content: 'hello again', clientMessageId: 'm1' }, meta(4)),
      ]),
    );

    expect(result).toEqual({ poison: [] });
    const session = adapters.readModel.sessions.get('s1');
    expect(session).toMatchObject({ tenant: 't1', messageCount: 2, lastOffset: 3 });
    expect(session?.config).toMatchObject({ provider: 'anthropic', contextWindow: 20_000 });
    expect([...adapters.readModel.messages.keys()].sort()).toEqual([
      messageDocumentId('s1', 0),
      messageDocumentId('s1', 1),
    ]);
    expect(adapters.readModel.messages.get(messageDocumentId('s1', 1))?.message).toEqual({
      role: 'assistant',
      content: 'hi',
    });
    expect(written).toEqual(['s1']);
  });

  it('projects the block stream (creation, revert, head) and reports an event of another stream as poison', async () => {
    const result = await handler.onBlocks(
      batch(
        'blocks',
        [
          createEvent('block.created', 's1', { block: summaryBlock('b1', 0, 1) } as never, meta(10)),
          createEvent('block.created', 's1', { block: summaryBlock('b2', 2, 3) } as never, meta(11)),
          createEvent('block.reverted', 's1', { blockId: 'b1' }, meta(12)),
          createEvent('message.appended', 's1', { role: 'user', content: 'misrouted' }, meta(13)),
        ],
        5,
      ),
    );

    expect(result.poison).toEqual([{ offset: '8', reason: 'message.appended does not belong on the block stream' }]);
    const blocks = await adapters.readModel.blocksOf('s1');
    expect(blocks.map((b) => [b.blockId, b.active])).toEqual([
      ['b1', false],
      ['b2', true],
    ]);
    expect(await adapters.readModel.blockHead('s1')).toBe(8);
  });

  it('a batch the read model refuses fails the handler (the transport retries it) and the read side forgets its partition', async () => {
    adapters.readModel.applySessionStream([
      {
        event: createEvent('message.appended', 's1', { role: 'user', content: 'first' }, meta(1)),
        partition: 0,
        offset: 0,
      },
    ]);
    const progress = moduleRef.get(ProjectionProgress);
    const failed = jest.spyOn(progress, 'failed');
    jest.spyOn(adapters.readModel, 'applySessionStream').mockImplementationOnce(() => {
      throw new Error('guard: s1 moved');
    });

    await expect(
      handler.onSessionEvents(
        batch('sessions', [createEvent('message.appended', 's1', { role: 'user', content: 'x' }, meta(2))], 1),
      ),
    ).rejects.toThrow('guard: s1 moved');
    expect(failed).toHaveBeenCalledWith('sessionEvents', 0);
  });
});
