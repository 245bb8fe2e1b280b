import { createEvent, type AnyEvent } from '@ctxledger/contracts';
import { InMemoryReadModel } from './testing/in-memory-read-model';

const message = (content: string, eventId: string, clientMessageId?: string): AnyEvent =>
  createEvent(
    'message.appended',
    's',
    { role: 'user', content, ...(clientMessageId !== undefined && { clientMessageId }) } as never,
    { eventId, time: '2026-01-01T00:00:00.000Z' },
  );
const positioned = (events: AnyEvent[], from = 0) =>
  events.map((event, i) => ({ event, partition: 0, offset: from + i }));
const stored = (model: InMemoryReadModel) => model.snapshot().messages.map((m) => m.message.content);

describe('the session-stream projection: a message event published twice', () => {
  it('keeps one message per event id (without a clientMessageId), in one batch and across batches', () => {
    const model = new InMemoryReadModel();
    model.applySessionStream(positioned([message('one', 'e1'), message('one', 'e1'), message('two', 'e2')]));
    model.applySessionStream(positioned([message('one', 'e1'), message('three', 'e3')], 3));
    expect(stored(model)).toEqual(['one', 'two', 'three']);
    expect(model.sessions.get('s')!.messageCount).toBe(3);
    expect(model.snapshot().messages.map((m) => m.eventId)).toEqual(['e1', 'e2', 'e3']);
  });

  it('identifies a message with a clientMessageId by it, not by its event id', () => {
    const model = new InMemoryReadModel();
    model.applySessionStream(
      positioned([message('a', 'e1', 'm1'), message('a again', 'e2', 'm1'), message('b', 'e3', 'm2')]),
    );
    expect(stored(model)).toEqual(['a', 'b']);
  });
});
