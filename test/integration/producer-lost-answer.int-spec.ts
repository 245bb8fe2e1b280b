import { Kafka, logLevel } from 'kafkajs';
import { allTopics, createEvent, type AnyEvent } from '@ctxledger/contracts';
import { ensureTopics, EventProducer, kafkaSettings } from '@ctxledger/kafka';
import { LostProduceAnswers } from '../support/kafka-lost-answer';
import { readTopic } from '../support/kafka-helpers';
import { testStack, unique } from '../support/stack-settings';

/**
 * A batch the broker wrote but whose answer the client never got (a broker stopping between writing and
 * answering; a dropped connection) must not cost another send its record. It did with kafkajs' idempotent
 * producer: on a failed request it hands the batch's sequence numbers back, the next send on the partition (another
 * session's message) takes them, and the broker, seeing the sequence of a batch it already has, answers "written"
 * with the earlier batch's offset without writing anything. That message was acknowledged (HTTP 202) and lost; a
 * three-broker fault test caught it once in a few runs. Here the lost answer is made on purpose, every time.
 */
describe('EventProducer: a lost answer never turns another send into an acknowledged loss (real broker)', () => {
  const brokers = testStack().brokers;
  const prefix = unique('lostanswer').replace(/-/g, '_');
  const settings = kafkaSettings({ brokers, clientId: 'lost-answer-test', topicPrefix: prefix });
  const faults = new LostProduceAnswers();
  const kafka = new Kafka({
    clientId: 'lost-answer-test',
    brokers,
    logLevel: logLevel.NOTHING,
    socketFactory: faults.socketFactory,
    // The lost answer is noticed after this long (kafkajs' default is 30 s).
    requestTimeout: 1500,
  });
  const producer = new EventProducer(kafka, settings);

  beforeAll(async () => {
    await ensureTopics(new Kafka({ brokers, logLevel: logLevel.NOTHING }), allTopics(prefix), 1);
    await producer.onModuleInit();
  }, 60_000);
  afterAll(() => producer.onModuleDestroy());

  const message = (sessionId: string, content: string): AnyEvent =>
    createEvent('message.appended', sessionId, { role: 'user', content, clientMessageId: content }, { tenant: 't' });

  it('every send answered as written is in the log (one partition, sends queued behind the one whose answer is lost)', async () => {
    // Warm up: the producer has its id and the partition's leader before the fault.
    await producer.send([{ stream: 'sessionEvents', event: message('warm', 'warm-up') }]);

    const outcomes: Array<{ event: AnyEvent; ok: boolean; offset?: string; error?: string }> = [];
    for (let round = 0; round < 3; round++) {
      faults.loseNext();
      // One send whose answer is lost, and others of other sessions queued behind it on the same partition.
      const events = ['a', 'b', 'c', 'd'].map((s) => message(`session-${s}`, `r${round}-${s}`));
      const settled = await Promise.allSettled(
        events.map((event) => producer.send([{ stream: 'sessionEvents', event }])),
      );
      settled.forEach((s, i) =>
        outcomes.push(
          s.status === 'fulfilled'
            ? { event: events[i]!, ok: true, offset: s.value[0]!.baseOffset }
            : { event: events[i]!, ok: false, error: String(s.reason) },
        ),
      );
    }
    expect(faults.dropped).toHaveLength(3);

    const log = await readTopic(kafka, settings.topics.sessionEvents);
    const written = new Map<string, string[]>();
    for (const r of log) written.set(r.event.eventId, [...(written.get(r.event.eventId) ?? []), r.offset]);
    const acknowledged = outcomes.filter((o) => o.ok);
    // Answered "written" but not in the log: what the idempotent producer did.
    const lost = acknowledged.filter((o) => !written.has(o.event.eventId));
    expect(lost.map((o) => `${(o.event.data as { content: string }).content} acknowledged at ${o.offset}`)).toEqual([]);
    // Each acknowledgement points at its own record (the idempotent producer gave several the same offset).
    for (const o of acknowledged) expect(written.get(o.event.eventId)).toContain(o.offset);
    // The sends whose answer was lost were retried by the producer: all twelve are acknowledged (a retry of a batch
    // the broker had written may have written it twice; consumers drop the copy by its event id / clientMessageId).
    expect(acknowledged).toHaveLength(12);
  }, 60_000);
});
