import { Type, type Static } from '@sinclair/typebox';
import { STAGES } from '@ctxledger/context-engine';
import { LIMITS } from '../limits';
import { StringEnum } from '../schema/builders';
import { Message } from './message';

/** The engine's stages: one list, so the wire contract cannot drift from what the engine emits. */
export const BLOCK_STAGES = STAGES;

const POSITION_RANGE = { from: Type.Integer({ minimum: 0 }), to: Type.Integer({ minimum: 0 }) };
export const PositionRange = Type.Object(POSITION_RANGE, { title: 'PositionRange' });
export type PositionRange = Static<typeof PositionRange>;

export const BlockEdit = Type.Object({
  ...POSITION_RANGE,
  replacement: Type.Array(Message, { maxItems: LIMITS.maxMessagesPerEvent }),
});
export type BlockEdit = Static<typeof BlockEdit>;

/** A compaction decision as it travels on the block stream (mirrors the engine's CompactionBlock). */
export const Block = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength }),
    sessionId: Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength }),
    stage: StringEnum(BLOCK_STAGES),
    range: PositionRange,
    edits: Type.Array(BlockEdit, { minItems: 1, maxItems: LIMITS.maxMessagesPerEvent }),
    tokensBefore: Type.Integer({ minimum: 0 }),
    tokensAfter: Type.Integer({ minimum: 0 }),
    tokensSaved: Type.Integer({ minimum: 1 }),
    basedOnPosition: Type.Integer({ minimum: -1 }),
    engineVersion: Type.String({ minLength: 1, maxLength: 100 }),
  },
  { title: 'Block' },
);
export type Block = Static<typeof Block>;

/** `block.created` */
export const BlockCreatedData = Type.Object({ block: Block }, { title: 'BlockCreatedData' });
export type BlockCreatedData = Static<typeof BlockCreatedData>;

/** `block.reverted` */
export const BlockRevertedData = Type.Object(
  {
    blockId: Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength }),
    /** The event id of the revert request that caused it, if any. */
    requestedBy: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.maxIdLength })),
  },
  { title: 'BlockRevertedData' },
);
export type BlockRevertedData = Static<typeof BlockRevertedData>;
