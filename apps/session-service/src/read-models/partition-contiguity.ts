/**
 * Per partition, from which offset on this instance has handled every record without a gap. State kept in
 * memory about a key of the partition (a session) as of offset L is still current while `contiguousFrom` ≤ L + 1:
 * every later record was handled here. A batch that does not follow the last one (another instance had the
 * partition, a record was skipped) starts a new run.
 */
export class PartitionContiguity {
  private readonly partitions = new Map<number, { last: number; contiguousFrom: number }>();

  /** Before a batch from `first` is handled: the start of the run it continues (or `first`, after a gap). */
  before(partition: number, first: number): number {
    const seen = this.partitions.get(partition);
    return seen && first <= seen.last + 1 ? seen.contiguousFrom : first;
  }

  /** A batch [first, last] of the partition was handled (its effects are durable); returns the run's start. */
  handled(partition: number, first: number, last: number): number {
    const seen = this.partitions.get(partition);
    const contiguousFrom = seen && first <= seen.last + 1 ? Math.min(seen.contiguousFrom, first) : first;
    this.partitions.set(partition, { last: Math.max(last, seen?.last ?? -1), contiguousFrom });
    return contiguousFrom;
  }
}
