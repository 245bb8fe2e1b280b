import type { CompactionBlock } from '@ctxledger/context-engine/model/block';
import type { ChatMessage } from '@ctxledger/context-engine/model/message';
import { createEvent, decodeEvent, encodeEvent, type RecordCoordinates } from './codec';
import type { Block } from './events/block-events';
import type { Message } from './events/message';
import { LIMITS } from './limits';
import { ContractViolationError } from './validation';

const at = (key: string | null = 's-1', offset = '42'): RecordCoordinates => ({
  topic: 'ctxledger.session-events',
  partition: 3,
  offset,
  timestamp: String(Date.UTC(2026, 10, 22, 3, 0, 0)),
  key,
});

const decode = (value: unknown, record = at()) =>
  decodeEvent(typeof value === 'string' ? value : JSON.stringify(value), record, 'sessionEvents');

describe('decodeEvent', () => {
  it('accepts the minimal JSON a raw producer (kcat) publishes, and fills the defaults', () => {
    const result = decode({ type: 'message.appended', sessionId: 's-1', data: { role: 'user', content: 'hi' } });
    expect(result).toEqual({
      ok: true,
      event: {
        type: 'message.appended',
        schemaVersion: 1,
        eventId: 'ctxledger.session-events/3/42',
        sessionId: 's-1',
        tenant: 'default',
        time: '2026-11-22T03:00:00.000Z',
        data: { role: 'user', content: 'hi' },
      },
    });
  });

  it('keeps tool calls, tool results and the client message id; drops unknown fields', () => {
    const assistant = decode({
      type: 'message.appended',
      sessionId: 's-1',
      data: {
        role: 'assistant',
        content: '',
        clientMessageId: 'm-2',
        toolCalls: [{ id: 'c1', name: 'read', arguments: '{"path":"a.ts"}' }],
        futureField: 1,
      },
    });
    expect(assistant.ok && assistant.event.data).toEqual({
      role: 'assistant',
      content: '',
      clientMessageId: 'm-2',
      toolCalls: [{ id: 'c1', name: 'read', arguments: '{"path":"a.ts"}' }],
    });
    const tool = decode({
      type: 'message.appended',
      sessionId: 's-1',
      data: { role: 'tool', content: 'file text', toolCallId: 'c1', toolName: 'read', isError: false },
    });
    expect(tool.ok).toBe(true);
  });

  it('takes an optional field given as null for one left out, and refuses a required one given as null', () => {
    const result = decode({
      type: 'message.appended',
      sessionId: 's-1',
      tenant: null,
      eventId: null,
      data: {
        role: 'user',
        content: 'hi',
        clientMessageId: null,
        toolCalls: null,
        images: [{ bytes: 1, mediaType: null }],
      },
    });
    expect(result).toMatchObject({
      ok: true,
      event: { tenant: 'default', eventId: 'ctxledger.session-events/3/42', data: { role: 'user', content: 'hi' } },
    });
    expect(result.ok && result.event.data).toEqual({ role: 'user', content: 'hi', images: [{ bytes: 1 }] });
    expect(decode({ type: 'message.appended', sessionId: 's-1', data: { role: 'user', content: null } })).toEqual({
      ok: false,
      reason: 'data.content: must be a string',
    });
    expect(
      decode({ type: 'message.appended', sessionId: 's-1', data: { role: 'tool', content: 'x', toolCallId: null } }),
    ).toEqual({ ok: false, reason: 'data.toolCallId: is required on tool messages' });
  });

  it.each([
    ['not JSON', 'this is not json', /not JSON/],
    ['a JSON array', '[1,2]', /must be a JSON object/],
    [
      'an unknown type',
      { type: 'message.deleted', sessionId: 's-1', data: {} },
      /^type: must be one of: .*message.appended/,
    ],
    [
      'a type of another stream',
      { type: 'block.created', sessionId: 's-1', data: {} },
      /does not belong on ctxledger.session-events/,
    ],
    ['no sessionId', { type: 'message.appended', data: { role: 'user', content: 'x' } }, /sessionId/],
    [
      'an operator in the sessionId',
      { type: 'message.appended', sessionId: '{"$ne":1}', data: { role: 'user', content: 'x' } },
      /^sessionId: may contain only letters, digits and _:@-$/,
    ],
    [
      'a wrong role',
      { type: 'message.appended', sessionId: 's-1', data: { role: 'robot', content: 'x' } },
      /data.role: must be one of/,
    ],
    [
      'content not a string',
      { type: 'message.appended', sessionId: 's-1', data: { role: 'user', content: 5 } },
      /data.content: must be a string/,
    ],
    [
      'a tool message without toolCallId',
      { type: 'message.appended', sessionId: 's-1', data: { role: 'tool', content: 'x' } },
      /data.toolCallId: is required on tool messages/,
    ],
    [
      'tool calls on a user message',
      { type: 'message.appended', sessionId: 's-1', data: { role: 'user', content: 'x', toolCalls: [] } },
      /^data.toolCalls: is only allowed on assistant messages$/,
    ],
    [
      'a tool call without id',
      {
        type: 'message.appended',
        sessionId: 's-1',
        data: { role: 'assistant', content: '', toolCalls: [{ name: 'x', arguments: '{}' }] },
      },
      /data.toolCalls.0.id/,
    ],
    [
      'an unsupported schema version',
      { type: 'message.appended', schemaVersion: 2, sessionId: 's-1', data: { role: 'user', content: 'x' } },
      /^schemaVersion: only version 1 is supported$/,
    ],
    [
      'a content over the limit',
      {
        type: 'message.appended',
        sessionId: 's-1',
        data: { role: 'user', content: 'x'.repeat(LIMITS.maxContentChars + 1) },
      },
      /data.content: must be shorter than or equal to 400000/,
    ],
  ])('refuses %s with a reason naming what is wrong', (_name, value, reason) => {
    const result = decode(value);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it('refuses a record over the size limit before parsing it', () => {
    const result = decode('x'.repeat(LIMITS.maxEventBytes + 1));
    expect(!result.ok && result.reason).toMatch(/over the limit of 1000000/);
  });

  it('refuses a record whose key is missing or is not the session id', () => {
    const event = { type: 'message.appended', sessionId: 's-1', data: { role: 'user', content: 'x' } };
    expect(decode(event, at(null))).toMatchObject({ ok: false, reason: expect.stringMatching(/no key/) });
    expect(decode(event, at('s-2'))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/key "s-2" is not the sessionId "s-1"/),
    });
  });

  it('refuses a value that is not valid UTF-8, naming the byte, instead of decoding it with U+FFFD', () => {
    const good = Buffer.from('{"type":"message.appended","sessionId":"s-1","data":{"role":"user","content":"caf"}}');
    const at29 = good.indexOf('caf') + 3;
    const bad = Buffer.concat([good.subarray(0, at29), Buffer.from([0xc3, 0x28]), good.subarray(at29)]);
    expect(decodeEvent(good, at(), 'sessionEvents').ok).toBe(true);
    expect(decodeEvent(bad, at(), 'sessionEvents')).toEqual({
      ok: false,
      reason: `the value is not valid UTF-8 (byte ${at29})`,
    });
  });

  it('a tombstone is refused', () => {
    expect(decodeEvent(null, at(), 'sessionEvents')).toEqual({
      ok: false,
      reason: 'the record has no value (tombstone)',
    });
  });
});

describe('encodeEvent', () => {
  it('round-trips through decodeEvent', () => {
    const event = createEvent(
      'compaction.requested',
      's-9',
      { trigger: 'overflow', errorText: 'prompt is too long' },
      { correlationId: 'req-1' },
    );
    const decoded = decodeEvent(encodeEvent(event), at('s-9'), 'sessionEvents');
    expect(decoded).toEqual({ ok: true, event });
  });

  it('refuses to send an event that breaks its contract, naming every violation', () => {
    const bad = createEvent('message.appended', 's-1', { role: 'tool', content: 'x' } as never);
    expect(() => encodeEvent(bad)).toThrow(ContractViolationError);
    expect(() => encodeEvent(bad)).toThrow(/data.toolCallId/);
  });
});

// Compile-time: the wire types stay assignable to the engine's types (typecheck fails if they drift).
export const blockIsEngineBlock = (b: Block): CompactionBlock => b;
export const messageIsEngineMessage = (m: Message): ChatMessage => m;
