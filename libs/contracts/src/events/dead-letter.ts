import { Type, type Static } from '@sinclair/typebox';
import { LIMITS } from '../limits';

/**
 * How much of a refused record's value the dead-letter event may keep: all of it, as long as the whole event fits in
 * one record (LIMITS.maxEventBytes). Only a value near that limit, or one that JSON escaping inflates, is cut.
 */
export const DEAD_LETTER_PAYLOAD_CHARS = LIMITS.maxEventBytes;

/** `event.dead-lettered`: a record no consumer could process, with the reason and where it came from. */
export const EventDeadLetteredData = Type.Object(
  {
    sourceTopic: Type.String({ minLength: 1, maxLength: 300 }),
    partition: Type.Integer({ minimum: 0 }),
    offset: Type.String({ minLength: 1, maxLength: 30 }),
    key: Type.Optional(Type.String({ maxLength: 1000 })),
    reason: Type.String({ minLength: 1, maxLength: 2000 }),
    /** Which consumer refused it. */
    consumer: Type.String({ minLength: 1, maxLength: 200 }),
    payload: Type.String({
      maxLength: DEAD_LETTER_PAYLOAD_CHARS,
      description:
        "The refused record's value as text: whole, unless payloadCutFromBytes is set (the event must fit in one record of 1,000,000 bytes).",
    }),
    payloadCutFromBytes: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Set when payload is only the beginning of the value: the value's size in bytes. The whole record stays at sourceTopic/partition/offset.",
      }),
    ),
  },
  { title: 'EventDeadLetteredData' },
);
export type EventDeadLetteredData = Static<typeof EventDeadLetteredData>;
