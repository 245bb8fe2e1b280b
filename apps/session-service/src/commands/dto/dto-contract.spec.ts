import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import type { TObject } from '@sinclair/typebox';
import {
  ImageRef,
  LIMITS,
  MessageAppendedData,
  SessionConfiguredData,
  SummarizerChoice,
  ToolCall,
  violationsOf,
} from '@ctxledger/contracts';
import { AppendMessageDto, ImageRefBody, ToolCallBody } from './append-messages.dto';
import { SessionConfigDto, SummarizerChoiceBody } from './session-config.dto';

/**
 * The HTTP bodies restate the event schemas as class-validator decorators (Nest's way); what the HTTP side accepts
 * is then appended as an event, checked by the schema again. These keep the two from drifting apart.
 */
const PAIRS = [
  ['message.appended', AppendMessageDto, MessageAppendedData],
  ['tool call', ToolCallBody, ToolCall],
  ['image', ImageRefBody, ImageRef],
  ['session.configured', SessionConfigDto, SessionConfiguredData],
  ['summarizer choice', SummarizerChoiceBody, SummarizerChoice],
] as const;

/** The properties a class declares, and those it requires (no @IsOptional / conditional validation). */
function classShape(cls: abstract new () => object): { properties: string[]; required: string[] } {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls as never, '', true, false);
  const properties = [...new Set(metas.map((m) => m.propertyName))].sort();
  const optional = new Set(metas.filter((m) => m.type === 'conditionalValidation').map((m) => m.propertyName));
  return { properties, required: properties.filter((p) => !optional.has(p)) };
}

const schemaShape = (schema: TObject) => ({
  properties: Object.keys(schema.properties).sort(),
  required: [...(schema.required ?? [])].sort(),
});

describe('HTTP bodies and event schemas', () => {
  it.each(PAIRS)('%s: the body declares the properties of the schema, and requires the same', (_n, cls, schema) => {
    expect(classShape(cls)).toEqual(schemaShape(schema as TObject));
  });

  const httpViolations = (cls: new () => object, body: unknown) =>
    validateSync(plainToInstance(cls, body) as object, { whitelist: true, forbidUnknownValues: true }).length;

  it.each([
    ['a user message', { role: 'user', content: 'hi', clientMessageId: 'm-1' }, true],
    [
      'an assistant message with tool calls and images',
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', name: 'read', arguments: '{}' }],
        images: [{ bytes: 10, mediaType: 'image/png' }],
      },
      true,
    ],
    ['a tool result', { role: 'tool', content: 'x', toolCallId: 'c1', toolName: 'read', isError: false }, true],
    ['a wrong role', { role: 'robot', content: 'x' }, false],
    ['no content', { role: 'user' }, false],
    ['a tool message without its call id', { role: 'tool', content: 'x' }, false],
    ['tool calls on a user message', { role: 'user', content: 'x', toolCalls: [] }, false],
    ['a tool name on an assistant message', { role: 'assistant', content: 'x', toolName: 'read' }, false],
    ['a tool call without id', { role: 'assistant', content: '', toolCalls: [{ name: 'x', arguments: '{}' }] }, false],
    ['an empty tool call id', { role: 'tool', content: 'x', toolCallId: '' }, false],
    ['an operator in the client message id', { role: 'user', content: 'x', clientMessageId: '{"$ne":1}' }, false],
    ['a negative image size', { role: 'user', content: 'x', images: [{ bytes: -1 }] }, false],
    ['content over the limit', { role: 'user', content: 'x'.repeat(LIMITS.maxContentChars + 1) }, false],
  ])('message.appended, %s: both accept or both refuse', (_name, body, valid) => {
    expect(httpViolations(AppendMessageDto, body) === 0).toBe(valid);
    expect(violationsOf(MessageAppendedData, structuredClone(body), 'data', 'check').length === 0).toBe(valid);
  });

  it.each([
    ['a full configuration', { provider: 'anthropic', contextWindow: 200_000, threshold: 0.7, policy: { a: 1 } }, true],
    ['a summarizer choice', { summarizer: { provider: 'offline', model: 'm' } }, true],
    ['a window too small', { contextWindow: 10 }, false],
    ['a fractional window', { contextWindow: 1000.5 }, false],
    ['a threshold over 1', { threshold: 2 }, false],
    ['an unknown summarizer', { summarizer: { provider: 'x' } }, false],
    ['a policy that is not an object', { policy: 'x' }, false],
    ['negative system prompt tokens', { systemPromptTokens: -1 }, false],
  ])('session.configured, %s: both accept or both refuse', (_name, body, valid) => {
    expect(httpViolations(SessionConfigDto, body) === 0).toBe(valid);
    expect(violationsOf(SessionConfiguredData, structuredClone(body), 'data', 'check').length === 0).toBe(valid);
  });
});
