import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { parse } from 'yaml';
import { decodeEvent } from './codec';
import { EnvelopeDto, EVENT_TYPES, type EventType, type StreamName } from './envelope';
import { MessageDto, ToolCallDto } from './events/message.dto';
import { BlockDto } from './events/block-events';
import { acceptCorrelationId, CORRELATION_HEADER, MAX_CORRELATION_ID_LENGTH } from '@ctxledger/observability';

type Schema = { required?: string[]; properties?: Record<string, unknown>; $ref?: string; allOf?: Schema[] };
const doc = parse(readFileSync(resolve(__dirname, '../asyncapi.yaml'), 'utf8')) as {
  channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
  components: {
    messages: Record<
      string,
      {
        name: string;
        traits?: Array<{ $ref: string }>;
        payload: { allOf: Schema[] };
        examples: Array<{ payload: any }>;
      }
    >;
    messageTraits: Record<string, { headers: { properties: Record<string, { maxLength: number; pattern: string }> } }>;
    schemas: Record<string, Schema>;
  };
};

/** The properties a contract class declares, and those it requires (no @IsOptional / conditional validation). */
function classShape(cls: abstract new () => object): { properties: string[]; required: string[] } {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls as never, '', true, false);
  const properties = [...new Set(metas.map((m) => m.propertyName))].filter((p) => !p.startsWith('_')).sort();
  const optional = new Set(metas.filter((m) => m.type === 'conditionalValidation').map((m) => m.propertyName));
  return { properties, required: properties.filter((p) => !optional.has(p)).sort() };
}

const schemaOfMessage = (type: string): Schema => {
  const ref = (doc.components.messages[type].payload.allOf[1].properties!.data as { $ref: string }).$ref;
  return doc.components.schemas[ref.split('/').pop()!];
};

describe('the AsyncAPI document matches the contract classes', () => {
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

  it.each(Object.keys(EVENT_TYPES) as EventType[])(
    '%s: the data schema lists the class fields and required fields',
    (type) => {
      const schema = schemaOfMessage(type);
      const shape = classShape(EVENT_TYPES[type].data);
      expect(Object.keys(schema.properties ?? {}).sort()).toEqual(shape.properties);
      expect([...(schema.required ?? [])].sort()).toEqual(shape.required);
    },
  );

  it.each([
    ['Envelope', EnvelopeDto],
    ['Message', MessageDto],
    ['ToolCall', ToolCallDto],
    ['Block', BlockDto],
  ] as const)('shared schema %s lists the class fields and required fields', (name, cls) => {
    const schema = doc.components.schemas[name];
    const shape = classShape(cls);
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(shape.properties);
    expect([...(schema.required ?? [])].sort()).toEqual(shape.required);
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
