/**
 * Which of a live run's numbered events this process has folded into its
 * tracker, when several processes write the run (a shared PostgreSQL behind a
 * load balancer: docs/design.md#team-dashboard). This process folds its own
 * events before the database numbers them; the ones another process numbered
 * in between are read back from the database and folded before this process
 * folds its next reported batch (`Hub.catchUp`). `through` is the highest seq
 * up to which every event is folded; `own` the seqs above it that were this
 * process's own (folded already, so skipped when the gap is read). With one
 * writer every seq is its own and arrives in order: `own` stays empty.
 */
export class FoldedSeqs {
  private readonly own = new Set<number>();

  constructor(public through = 0) {}

  /** One of this process's events was numbered `seq` (it was folded before). */
  ownNumbered(seq: number): void {
    if (seq <= this.through) return;
    if (seq !== this.through + 1) {
      this.own.add(seq);
      return;
    }
    this.through = seq;
    while (this.own.delete(this.through + 1)) this.through++;
  }

  /** Whether `seq`, read from the database, must be folded (it is not this process's own); marks it folded. */
  take(seq: number): boolean {
    if (seq <= this.through) return false;
    this.through = seq;
    const mine = this.own.delete(seq);
    while (this.own.delete(this.through + 1)) this.through++;
    return !mine;
  }

  /** Own seqs waiting above a gap (bounded by what other processes wrote since the last catch-up). */
  get pending(): number {
    return this.own.size;
  }
}
