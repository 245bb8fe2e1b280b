import {
  acceptCorrelationId,
  CORRELATION_HEADER,
  correlationHeaders,
  correlationIdOfRecord,
  currentCorrelation,
  currentCorrelationId,
  MAX_CORRELATION_ID_LENGTH,
  newCorrelationId,
  runWithCorrelation,
} from './correlation';

describe('acceptCorrelationId', () => {
  it('takes a bounded id of safe characters (trimmed), from a string, a Buffer or the first of an array', () => {
    expect(acceptCorrelationId('req-42')).toBe('req-42');
    expect(acceptCorrelationId('  a1_b.c:d@e/f+g=h  ')).toBe('a1_b.c:d@e/f+g=h');
    expect(acceptCorrelationId(Buffer.from('from-kafka'))).toBe('from-kafka');
    expect(acceptCorrelationId(['first', 'second'])).toBe('first');
    expect(acceptCorrelationId('x'.repeat(MAX_CORRELATION_ID_LENGTH))).toHaveLength(MAX_CORRELATION_ID_LENGTH);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['too long', 'x'.repeat(MAX_CORRELATION_ID_LENGTH + 1)],
    ['a space inside', 'two words'],
    ['a newline (log injection)', 'ok\n{"level":"error"}'],
    ['quotes', 'a"b'],
    ['non-ASCII', 'café'],
    ['not a string', 42],
    ['undefined', undefined],
  ])('refuses %s', (_, raw) => {
    expect(acceptCorrelationId(raw)).toBeUndefined();
  });

  it('generates ids that it accepts, each different', () => {
    const a = newCorrelationId();
    expect(acceptCorrelationId(a)).toBe(a);
    expect(newCorrelationId()).not.toBe(a);
  });
});

describe('runWithCorrelation', () => {
  it('is seen through awaits and timers, and not outside', async () => {
    expect(currentCorrelation()).toBeUndefined();
    const seen = await runWithCorrelation({ correlationId: 'outer', sessionId: 's1' }, async () => {
      await Promise.resolve();
      const afterAwait = currentCorrelationId();
      const inTimer = await new Promise<string | undefined>((done) =>
        setTimeout(() => done(currentCorrelationId()), 1),
      );
      return { afterAwait, inTimer, session: currentCorrelation()?.sessionId };
    });
    expect(seen).toEqual({ afterAwait: 'outer', inTimer: 'outer', session: 's1' });
    expect(currentCorrelation()).toBeUndefined();
  });

  it('keeps concurrent units of work apart', async () => {
    const work = (id: string, delayMs: number) =>
      runWithCorrelation({ correlationId: id }, async () => {
        await new Promise((r) => setTimeout(r, delayMs));
        return currentCorrelationId();
      });
    await expect(Promise.all([work('a', 15), work('b', 1), work('c', 8)])).resolves.toEqual(['a', 'b', 'c']);
  });

  it('the headers of a record produced now: the current id, or none', () => {
    expect(correlationHeaders()).toEqual({});
    expect(runWithCorrelation({ correlationId: 'c-1' }, correlationHeaders)).toEqual({ [CORRELATION_HEADER]: 'c-1' });
  });
});

describe('correlationIdOfRecord', () => {
  const at = { topic: 'p.session-events', partition: 3, offset: '17' };

  it('prefers the header (any case, Buffer as kafkajs gives it)', () => {
    expect(
      correlationIdOfRecord({
        ...at,
        headers: { [CORRELATION_HEADER]: Buffer.from('from-header') },
        event: { correlationId: 'from-event', eventId: 'e1' },
      }),
    ).toBe('from-header');
    expect(correlationIdOfRecord({ ...at, headers: { 'X-Correlation-Id': 'mixed-case' } })).toBe('mixed-case');
  });

  it("without a usable header: the event's correlationId, then its eventId, then the record's coordinates", () => {
    const bad = { [CORRELATION_HEADER]: Buffer.from('not safe!') };
    expect(correlationIdOfRecord({ ...at, headers: bad, event: { correlationId: 'idem-1', eventId: 'e1' } })).toBe(
      'idem-1',
    );
    expect(correlationIdOfRecord({ ...at, event: { correlationId: 'has space', eventId: 'e1' } })).toBe('e1');
    expect(correlationIdOfRecord({ ...at, headers: {} })).toBe('p.session-events/3/17');
  });
});
