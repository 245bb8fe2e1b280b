/**
 * Per partition, from which offset on this instance has handled every record without a gap. State kept in
 * memory about a key of the partition (a session) as of offset L is still current while `contiguousFrom` ≤ L + 1:
 * every later record was handled here. A batch that does not follow the last one (another instance had the
 * partition, a record was skipped) starts a new run; so does the first batch after `forget`.
 */
export class PartitionContiguity {
  private readonly partitions = new Map<number, { last: number; contiguousFrom: number; run: number }>();
  private runs = 0;

  /** Before a batch from `first` is handled: the start of the run it continues (or `first`, after a gap). */
  before(partition: number, first: number): number {
    const seen = this.partitions.get(partition);
    return seen && first <= seen.last + 1 ? seen.contiguousFrom : first;
  }

  /** A batch [first, last] of the partition was handled (its effects are durable); returns the run's start. */
  handled(partition: number, first: number, last: number): number {
    const seen = this.partitions.get(partition);
    if (seen && first <= seen.last + 1) {
      seen.contiguousFrom = Math.min(seen.contiguousFrom, first);
      seen.last = Math.max(last, seen.last);
      return seen.contiguousFrom;
    }
    this.partitions.set(partition, { last, contiguousFrom: first, run: ++this.runs });
    return first;
  }

  /**
   * The partition's current run, its last handled offset and the offset the run started from (undefined before
   * its first batch): the run changes when a run ends, the last offset when a batch was handled.
   */
  position(partition: number): { readonly run: number; readonly last: number; readonly from: number } | undefined {
    const seen = this.partitions.get(partition);
    return seen && { run: seen.run, last: seen.last, from: seen.contiguousFrom };
  }

  /** Ends the runs of the partitions (all when none is given): their next batch starts a new one. */
  forget(partitions?: Iterable<number>): void {
    if (partitions === undefined) this.partitions.clear();
    else for (const partition of partitions) this.partitions.delete(partition);
  }
}
