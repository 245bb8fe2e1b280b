import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../limits';
import { StringEnum } from '../schema/builders';

export const ROLES = ['system', 'user', 'assistant', 'tool'] as const;
export type Role = (typeof ROLES)[number];

export const ToolCall = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength }),
    name: Type.String({ minLength: 1, maxLength: LIMITS.maxNameLength }),
    arguments: Type.String({
      maxLength: LIMITS.maxToolArgumentsChars,
      description: "The call's input encoded as a JSON string.",
    }),
  },
  { title: 'ToolCall' },
);
export type ToolCall = Static<typeof ToolCall>;

export const ImageRef = Type.Object(
  {
    /** Decoded byte length of the image; only its size matters to the budget. */
    bytes: Type.Integer({ minimum: 0 }),
    mediaType: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { title: 'ImageRef' },
);
export type ImageRef = Static<typeof ImageRef>;

/** The properties of one conversation message (message.appended adds its idempotency key to them). */
export const MESSAGE_PROPERTIES = {
  role: StringEnum(ROLES),
  content: Type.String({ maxLength: LIMITS.maxContentChars }),
  toolCalls: Type.Optional(
    Type.Array(ToolCall, {
      maxItems: LIMITS.maxToolCallsPerMessage,
      onlyOnRole: 'assistant',
      description: 'Only on assistant messages.',
    }),
  ),
  toolCallId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: LIMITS.maxIdLength,
      description: 'Required on tool messages.',
      errorMessage: { type: 'is required on tool messages' },
    }),
  ),
  toolName: Type.Optional(
    Type.String({ maxLength: LIMITS.maxNameLength, onlyOnRole: 'tool', description: 'Only on tool messages.' }),
  ),
  isError: Type.Optional(Type.Boolean()),
  images: Type.Optional(Type.Array(ImageRef, { maxItems: LIMITS.maxImagesPerMessage })),
};
/** Cross-field rule of every message: a tool message names the call it answers. */
export const MESSAGE_RULES = { requiredOnRole: { tool: ['toolCallId'] } };

/**
 * One conversation message, provider-neutral (the transcript format of the data README).
 * Cross-field rules: tool calls only on assistant messages; tool names and the call id a tool message answers
 * only on, and the call id required on, tool messages.
 */
export const Message = Type.Object(MESSAGE_PROPERTIES, { title: 'Message', ...MESSAGE_RULES });
export type Message = Static<typeof Message>;
