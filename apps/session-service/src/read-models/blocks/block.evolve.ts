import { isEventOf, unhandledEvent, type AnyEvent } from '@ctxledger/contracts';
import { blockStructureViolations, type CompactionBlock } from '@ctxledger/context-engine';
import { unstorableReason } from '../storable';
import { blockDocumentId, type BlockDocument } from './block.document';

export interface BlockStreamRecord {
  readonly event: AnyEvent;
  readonly offset: number;
}

export type BlockEvolution =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'poison'; readonly reason: string }
  | { readonly kind: 'applied'; readonly doc: BlockDocument };

/** The id of the block document an event of the block stream is about. */
export function blockDocumentIdOf(event: AnyEvent): string | undefined {
  if (event.type === 'block.created') return blockDocumentId(event.sessionId, event.data.block.id);
  if (event.type === 'block.reverted') return blockDocumentId(event.sessionId, event.data.blockId);
  return undefined;
}

/**
 * The pure projection of the block stream onto one block document. Idempotent: a second `block.created`
 * of a stored id and a second `block.reverted` change nothing; a revert of an unknown block is ignored.
 */
export function evolveBlock(doc: BlockDocument | null, { event, offset }: BlockStreamRecord): BlockEvolution {
  if (!isEventOf(event, 'blocks'))
    return { kind: 'poison', reason: `${event.type} does not belong on the block stream` };
  switch (event.type) {
    case 'block.created': {
      if (doc) return { kind: 'unchanged' };
      const block = event.data.block as unknown as CompactionBlock;
      if (block.sessionId !== event.sessionId) {
        return { kind: 'poison', reason: `block ${block.id} names session ${block.sessionId}, not ${event.sessionId}` };
      }
      // A block the overlay cannot take (a reversed range, an edit outside it, overlapping edits, a tool result
      // without its call) would corrupt every read of the session: refused here, dead-lettered with the reason.
      const malformed = blockStructureViolations(block, 'data.block');
      if (malformed.length > 0)
        return { kind: 'poison', reason: `malformed block ${block.id}: ${malformed.join('; ')}` };
      const unstorable = unstorableReason(block, 'data.block');
      if (unstorable) return { kind: 'poison', reason: unstorable };
      return {
        kind: 'applied',
        doc: {
          _id: blockDocumentId(event.sessionId, block.id),
          sessionId: event.sessionId,
          tenant: event.tenant,
          blockId: block.id,
          block,
          active: true,
          createdOffset: offset,
          createdAt: event.time,
        },
      };
    }
    case 'block.reverted':
      if (doc && doc.tenant !== event.tenant) {
        return { kind: 'poison', reason: `block ${doc.blockId} belongs to another tenant than "${event.tenant}"` };
      }
      if (!doc || !doc.active) return { kind: 'unchanged' };
      return { kind: 'applied', doc: { ...doc, active: false, revertedOffset: offset, revertedAt: event.time } };
    default:
      return unhandledEvent(event); // compiles only while every block-stream type has its case above
  }
}
