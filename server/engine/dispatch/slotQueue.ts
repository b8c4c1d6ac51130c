/**
 * The concurrency slots and the requests waiting for one, FIFO. The queue is
 * two counters, not a promise per request: requests arrive in dataset order
 * and wait in that order, so the queued ones are exactly [started, arrived).
 * A rate-inf run of a million requests queues them all at once at a few
 * bytes each.
 *
 * The first wave (the slots' first fill; every start when there is no
 * concurrency limit, as all are then the first wave) starts its requests one
 * after another, each once the previous one's connect is out. A request's
 * start (its TTFT clock) runs in microtasks to its dispatch, and Node issues
 * the connect a tick later: started together, every first-wave request
 * waited for all the others' set-up before any connected, which no later
 * request does (they start one per finished request). vLLM's asyncio loop
 * runs each task to its connect before the next task starts, in one turn of
 * its loop; so does this: a started request hands on (`dispatched`) in the
 * tick after its dispatch's connect, with no I/O in between (a setImmediate
 * is the fallback when a request stops earlier, e.g. reading a prompt file).
 * Later starts are unchanged.
 *
 * Realtime runs (docs/design.md#realtime) group consecutive requests into
 * sessions of `turnsPerSession` turns; a slot is a session's, as in
 * vLLM-Omni where one request is one session: its first turn takes it, its
 * later turns start in it without waiting, and it is free once every turn
 * of the session ended.
 */
export class SlotQueue {
  /** Requests that left the arrival schedule. */
  private arrivedCount = 0;
  /** Requests that took a slot; the unsent ones of a stopped run begin here. */
  private startedCount = 0;
  /** Slots taken (sessions holding one; a request each when a session is one turn). */
  private active = 0;
  /** Requests started and not yet released. */
  private running = 0;
  /** Per session holding a slot: its turns not yet ended. */
  private readonly turnsLeft = new Map<number, number>();
  private fillToken = 0;
  /** The token of the first-wave start whose hand-on is due (0: none; the next start may go). */
  private handOnDue = 0;
  private onIdle: (() => void) | null = null;

  constructor(
    private readonly n: number,
    /** Slots: the run's max concurrency, or Infinity. */
    private readonly limit: number,
    /** Nothing starts once the run stopped. */
    private readonly stopSignal: AbortSignal,
    /** Starts request `index` in a slot; `token` is a first-wave start's (0 for later starts). */
    private readonly start: (index: number, token: number) => void,
    /** Consecutive requests sharing one slot (a realtime session's turns); 1 otherwise. */
    private readonly turnsPerSession = 1,
  ) {}

  get started(): number {
    return this.startedCount;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.arrivedCount - this.startedCount;
  }

  /** Request `index` arrived (in order): it queues, and starts at once if a slot is free. */
  arrive(index: number): void {
    this.arrivedCount = index + 1;
    this.pump();
  }

  /** Started request `index` ended, whatever its outcome: its slot is free once its session's turns all ended. */
  release(index: number): void {
    this.running--;
    const session = Math.floor(index / this.turnsPerSession);
    const left = (this.turnsLeft.get(session) ?? 1) - 1;
    if (left > 0) this.turnsLeft.set(session, left);
    else {
      this.turnsLeft.delete(session);
      this.active--;
    }
    this.pump();
  }

  /** A started request was dispatched: a first-wave one hands on to the next in the tick after its connect. */
  dispatched(token: number): void {
    if (token) process.nextTick(this.handOn, token);
  }

  /** Resolves once no request runs and none will start (all started and ended, or the run stopped). */
  idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.onIdle = resolve;
      this.pump();
    });
  }

  private readonly handOn = (token: number): void => {
    if (token !== this.handOnDue) return; // already handed on
    this.handOnDue = 0;
    this.pump();
  };

  /** Starts queued requests while slots are free; tells the waiting producer when all is idle. */
  private pump(): void {
    while (this.startedCount < this.arrivedCount && !this.stopSignal.aborted) {
      const k = this.turnsPerSession;
      // A later turn of a session starts in its session's slot.
      const rider = this.startedCount % k !== 0;
      if (!rider && this.active >= this.limit) break;
      const firstFill = this.startedCount < this.limit;
      if (firstFill && this.handOnDue) break; // handOn starts it
      if (firstFill) {
        this.handOnDue = ++this.fillToken;
        setImmediate(this.handOn, this.handOnDue);
      }
      if (!rider) {
        this.active++;
        const session = this.startedCount / k;
        this.turnsLeft.set(session, Math.min(k, this.n - this.startedCount));
      }
      this.running++;
      this.start(this.startedCount++, firstFill ? this.handOnDue : 0);
    }
    if (this.onIdle && this.running === 0 && (this.stopSignal.aborted || this.startedCount === this.n)) this.onIdle();
  }
}
