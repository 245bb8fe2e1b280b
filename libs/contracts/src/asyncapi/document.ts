import type { TSchema } from '@sinclair/typebox';
import { MAX_CORRELATION_ID_LENGTH } from '@ctxledger/observability';
import { Envelope, EVENT_TYPES, eventTypesOf, type EventDataOf, type EventType, type StreamName } from '../envelope';
import { COPY_OF, OWN_KEYWORDS } from '../schema/builders';

/**
 * The AsyncAPI document of the topics (libs/contracts/asyncapi.yaml), built from the registry and the event schemas:
 * channels list the event types of their stream, `components.schemas` are the schemas the validators run. Only the
 * prose and the examples are written here. `npm run asyncapi` writes the file; asyncapi.spec.ts fails when the
 * committed one differs from what this builds.
 */

/** One example per message at least; its `data` is typed by the event's schema (and decoded by the spec). */
type Example<T extends EventType> = {
  readonly name?: string;
  readonly payload: { type: T; sessionId: string; eventId?: string; data: EventDataOf<T> };
};
const EXAMPLES: { readonly [T in EventType]: readonly Example<T>[] } = {
  'session.configured': [
    {
      payload: {
        type: 'session.configured',
        sessionId: 'sess-1',
        data: {
          provider: 'anthropic',
          model: 'claude-sonnet-4-20250514',
          maxOutputTokens: 8192,
          systemPromptTokens: 3000,
        },
      },
    },
  ],
  'message.appended': [
    {
      name: 'user',
      payload: {
        type: 'message.appended',
        sessionId: 'sess-1',
        data: { role: 'user', content: 'Fix the failing test', clientMessageId: 'm-1' },
      },
    },
    {
      name: 'assistant with parallel tool calls',
      payload: {
        type: 'message.appended',
        sessionId: 'sess-1',
        data: {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'call_1', name: 'read', arguments: '{"path":"src/a.ts"}' },
            { id: 'call_2', name: 'read', arguments: '{"path":"src/b.ts"}' },
          ],
        },
      },
    },
    {
      name: 'tool result',
      payload: {
        type: 'message.appended',
        sessionId: 'sess-1',
        data: { role: 'tool', content: 'export const a = 1;', toolCallId: 'call_1', toolName: 'read' },
      },
    },
  ],
  'compaction.requested': [
    {
      payload: {
        type: 'compaction.requested',
        sessionId: 'sess-1',
        data: { trigger: 'overflow', errorText: 'prompt is too long: 215000 tokens > 200000 maximum' },
      },
    },
  ],
  'block-revert.requested': [
    { payload: { type: 'block-revert.requested', sessionId: 'sess-1', data: { blockId: 'blk_3f2a9c' } } },
  ],
  'block.created': [
    {
      payload: {
        type: 'block.created',
        sessionId: 'sess-1',
        eventId: 'blk_3f2a9c',
        data: {
          block: {
            id: 'blk_3f2a9c',
            sessionId: 'sess-1',
            stage: 'prune',
            range: { from: 2, to: 2 },
            edits: [
              {
                from: 2,
                to: 2,
                replacement: [
                  { role: 'tool', content: '[Tool result cleared]', toolCallId: 'call_1', toolName: 'read' },
                ],
              },
            ],
            tokensBefore: 5400,
            tokensAfter: 12,
            tokensSaved: 5388,
            basedOnPosition: 40,
            engineVersion: 'context-engine/1.0.0',
          },
        },
      },
    },
  ],
  'block.reverted': [{ payload: { type: 'block.reverted', sessionId: 'sess-1', data: { blockId: 'blk_3f2a9c' } } }],
  'summary.requested': [
    {
      payload: {
        type: 'summary.requested',
        sessionId: 'sess-1',
        data: {
          requestId: 'sum_8c1d',
          range: { from: 0, to: 1 },
          messages: [
            { role: 'user', content: 'Fix the failing test' },
            { role: 'assistant', content: 'Fixed by pinning the clock.' },
          ],
          maxSummaryTokens: 2000,
        },
      },
    },
  ],
  'summary.completed': [
    {
      payload: {
        type: 'summary.completed',
        sessionId: 'sess-1',
        data: { requestId: 'sum_8c1d', summary: '## User requests\n- Fix the failing test', provider: 'offline' },
      },
    },
  ],
  'summary.failed': [
    {
      payload: {
        type: 'summary.failed',
        sessionId: 'sess-1',
        data: { requestId: 'sum_8c1d', reason: 'anthropic: 401 authentication_error', retryable: false },
      },
    },
  ],
  'event.dead-lettered': [
    {
      payload: {
        type: 'event.dead-lettered',
        sessionId: 'sess-1',
        data: {
          sourceTopic: 'ctxledger.session-events',
          partition: 2,
          offset: '1187',
          key: 'sess-1',
          reason: 'data.role: must be one of the following values: system, user, assistant, tool',
          consumer: 'compaction-service',
          payload: '{"type":"message.appended","sessionId":"sess-1","data":{"role":"robot","content":"x"}}',
        },
      },
    },
  ],
};

const INFO_DESCRIPTION = `Every topic carries the same JSON envelope (\`type\`, \`schemaVersion\`, \`eventId\`, \`sessionId\`, \`tenant\`, \`time\`,
\`causationId\`, \`correlationId\`, \`data\`). The Kafka record KEY MUST BE THE SESSION ID: it keeps all events of a
session ordered on one partition; a record without it is dead-lettered. A producer we did not write needs only
\`type\`, \`sessionId\` and \`data\`; \`eventId\` defaults to \`<topic>/<partition>/<offset>\`, \`tenant\` to \`default\`,
\`time\` to the record timestamp, \`schemaVersion\` to 1. Unknown fields are ignored. A record that breaks its
contract goes to the dead-letter topic with the reason, and its partition moves on.
Size limits: a record ≤ 1,000,000 bytes; message content ≤ 400,000 characters; tool-call arguments ≤ 200,000.
Cross-field rules of a message: \`toolCalls\` only on assistant messages; \`toolCallId\` required on, and \`toolName\`
only on, tool messages.
Record header \`x-correlation-id\` (optional, every topic): the id of the HTTP request or record that caused the
event; the services log under it and copy it onto every event they produce from that record. Without it the
consumer uses the envelope's \`correlationId\`, else its \`eventId\`, else \`<topic>/<partition>/<offset>\`.
Generated from the event schemas (libs/contracts/src/envelope.ts and events/*.ts) by \`npm run asyncapi\`;
libs/contracts/src/asyncapi.spec.ts fails when this file is not what they generate.
`;

const CHANNELS: { readonly [S in StreamName]: { readonly suffix: string; readonly description?: string } } = {
  sessionEvents: {
    suffix: 'session-events',
    description: `The session stream, written by the session service and by any agent platform, and by the summarizer for its
results: a session's whole history, including when each summary arrived, is one ordered log, so replaying
it yields the same blocks.
`,
  },
  blocks: { suffix: 'blocks', description: 'The block stream, written by the compaction service.' },
  summaryRequests: { suffix: 'summary-requests' },
  deadLetter: { suffix: 'dead-letter' },
};

const OPERATIONS = {
  appendToSession: {
    action: 'send',
    channel: { $ref: '#/channels/sessionEvents' },
    summary: 'Agents and platforms publish messages, configuration, compaction and revert requests.',
  },
  consumeSession: {
    action: 'receive',
    channel: { $ref: '#/channels/sessionEvents' },
    summary: "The compaction service and the session service's projector consume the session stream.",
  },
  publishBlocks: { action: 'send', channel: { $ref: '#/channels/blocks' } },
  requestSummaries: { action: 'send', channel: { $ref: '#/channels/summaryRequests' } },
  publishSummaryResults: {
    action: 'send',
    channel: { $ref: '#/channels/sessionEvents' },
    summary: 'The summarizer publishes summary.completed / summary.failed on the session stream.',
  },
  deadLetter: { action: 'send', channel: { $ref: '#/channels/deadLetter' } },
};

/** The header every message may carry (observability/correlation.ts accepts exactly this). */
const CORRELATED = {
  headers: {
    type: 'object',
    properties: {
      'x-correlation-id': {
        type: 'string',
        maxLength: MAX_CORRELATION_ID_LENGTH,
        pattern: '^[A-Za-z0-9_.:@/+=-]+$',
        description: 'Correlation id (an HTTP X-Request-Id, or the id of the record this one was produced from).',
      },
    },
  },
};

type Json = Record<string, unknown>;
const ref = (name: string) => `#/components/schemas/${name}`;

/**
 * The schemas as the document shows them: a schema with a `title` is a component, referred to by `$ref` wherever
 * it is used (with its own description or default, when the use has one); our own validation keywords are left out
 * (the descriptions say the same).
 */
class SchemaComponents {
  readonly schemas: Record<string, Json> = {};

  /** Adds the named schema (and those it uses) and returns its `$ref`. */
  add(schema: TSchema): string {
    const name = schema.title as string;
    if (!(name in this.schemas)) {
      this.schemas[name] = {}; // reserved: the order of the document is the order of first use
      this.schemas[name] = this.convert(schema, true) as Json;
    }
    return ref(name);
  }

  private convert(schema: unknown, root = false): unknown {
    if (Array.isArray(schema)) return schema.map((s) => this.convert(s));
    if (typeof schema !== 'object' || schema === null) return schema;
    const node = schema as Json;
    if (!root && typeof node.title === 'string') {
      const named = this.add(((node as { [COPY_OF]?: TSchema })[COPY_OF] ?? node) as TSchema);
      return {
        $ref: named,
        ...(node.description !== undefined && { description: node.description }),
        ...(node.default !== undefined && { default: node.default }),
      };
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'title' || (OWN_KEYWORDS as readonly string[]).includes(key)) continue;
      out[key] = key === 'properties' ? this.convertProperties(value as Json) : this.convert(value);
    }
    return out;
  }

  private convertProperties(properties: Json): Json {
    return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, this.convert(v)]));
  }
}

/** The whole document, as a plain object in the order it is written. */
export function asyncApiDocument(): Json {
  const components = new SchemaComponents();
  const envelope = components.add(Envelope);
  const messages: Json = {};
  for (const type of Object.keys(EVENT_TYPES) as EventType[]) {
    const data = components.add(EVENT_TYPES[type].data as TSchema);
    messages[type] = {
      name: type,
      traits: [{ $ref: '#/components/messageTraits/correlated' }],
      payload: { allOf: [{ $ref: envelope }, { properties: { type: { const: type }, data: { $ref: data } } }] },
      examples: EXAMPLES[type].map((e) => ({ ...(e.name !== undefined && { name: e.name }), payload: e.payload })),
    };
  }
  const channels = Object.fromEntries(
    (Object.keys(CHANNELS) as StreamName[]).map((stream) => [
      stream,
      {
        address: `{prefix}.${CHANNELS[stream].suffix}`,
        ...(CHANNELS[stream].description !== undefined && { description: CHANNELS[stream].description }),
        parameters: { prefix: { $ref: '#/components/parameters/prefix' } },
        messages: Object.fromEntries(
          eventTypesOf(stream).map((type) => [type, { $ref: `#/components/messages/${type}` }]),
        ),
      },
    ]),
  );
  return {
    asyncapi: '3.0.0',
    info: { title: 'Context Ledger events', version: '1.0.0', description: INFO_DESCRIPTION },
    defaultContentType: 'application/json',
    channels,
    operations: OPERATIONS,
    components: {
      parameters: { prefix: { description: 'TOPIC_PREFIX of the deployment.', default: 'ctxledger' } },
      messageTraits: { correlated: CORRELATED },
      messages,
      schemas: components.schemas,
    },
  };
}

/** The examples of each event type (the spec decodes every one on its topic). */
export const asyncApiExamples = (): { readonly [T in EventType]: readonly Example<T>[] } => EXAMPLES;
