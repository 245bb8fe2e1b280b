import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { acceptCorrelationId, CORRELATION_HEADER, MAX_CORRELATION_ID_LENGTH } from '@ctxledger/observability';
import { ASYNCAPI_FILE, renderAsyncApi } from '../../../tools/asyncapi/render';
import { decodeEvent } from './codec';
import { EVENT_TYPES, type EventType, type StreamName } from './envelope';

const committed = readFileSync(ASYNCAPI_FILE, 'utf8');
const doc = parse(committed) as {
  channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
  components: {
    messages: Record<string, { name: string; traits?: Array<{ $ref: string }>; examples: Array<{ payload: any }> }>;
    messageTraits: Record<string, { headers: { properties: Record<string, { maxLength: number; pattern: string }> } }>;
  };
};

describe('the AsyncAPI document is generated from the event schemas', () => {
  it('the committed asyncapi.yaml is byte for byte what the schemas generate (npm run asyncapi writes it)', () => {
    expect(committed).toBe(renderAsyncApi());
  });

  it('documents the correlation header on every message as the services accept it', () => {
    const header = doc.components.messageTraits.correlated.headers.properties[CORRELATION_HEADER];
    expect(header.maxLength).toBe(MAX_CORRELATION_ID_LENGTH);
    const pattern = new RegExp(header.pattern);
    for (const id of ['req-42', 'a/b:c@d+e=f.g_h', 'x'.repeat(128), 'x'.repeat(129), 'bad id', 'ü', 'a\nb']) {
      const documented = pattern.test(id) && id.length <= header.maxLength;
      expect({ id, accepted: acceptCorrelationId(id) !== undefined }).toEqual({ id, accepted: documented });
    }
    for (const [type, message] of Object.entries(doc.components.messages)) {
      expect({ type, traits: message.traits }).toEqual({
        type,
        traits: [{ $ref: '#/components/messageTraits/correlated' }],
      });
    }
  });

  const documented = Object.entries(doc.channels).flatMap(([stream, channel]) =>
    Object.keys(channel.messages).map((type) => ({ stream, type })),
  );

  it('documents every event type, on the channel of its stream, and no other', () => {
    const actual = (Object.keys(EVENT_TYPES) as EventType[]).map((type) => ({
      type,
      stream: EVENT_TYPES[type].stream,
    }));
    const byType = (a: { type: string }, b: { type: string }) => a.type.localeCompare(b.type);
    expect(documented.sort(byType)).toEqual(actual.sort(byType));
  });

  it('channel addresses are the topic names', () => {
    expect(doc.channels.sessionEvents.address).toBe('{prefix}.session-events');
    expect(doc.channels.deadLetter.address).toBe('{prefix}.dead-letter');
  });

  it.each(
    documented.flatMap(({ stream, type }) =>
      doc.components.messages[type].examples.map((e, i) => [type, i, stream, e.payload] as const),
    ),
  )('%s example %i decodes on its topic', (type, _i, stream, payload) => {
    const result = decodeEvent(
      JSON.stringify(payload),
      { topic: 'ctxledger.x', partition: 0, offset: '0', timestamp: '0', key: payload.sessionId },
      stream as StreamName,
    );
    expect(result).toMatchObject({ ok: true, event: { type } });
  });
});
