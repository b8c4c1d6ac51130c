/**
 * Random request event streams in the order the engine emits them
 * (server/engine/dispatch/dispatch.ts, requestRunner.ts, http/attempt.ts), for the
 * property tests of the request-lifecycle fold:
 * - requests arrive (`queued`) in dataset order and start FIFO within the
 *   concurrency limit; a start whose prompt could not be prepared fails
 *   without a `sent`;
 * - an attempt's messages come after its `sent` and before its end: one
 *   message emits `first_token`, `first_audio`, `progress` in that order, any
 *   of them (a message may carry no token: `progress` alone);
 * - a transport failure retries with a new `sent` (attempt + 1, up to 4),
 *   never once the run is stopping;
 * - each request ends once: completed, failed, timed out, cancelled, or never
 *   sent;
 * - a timeout of a fail-fast run stops the run at once: the requests never
 *   started are reported unsent in one block (dataset order), the
 *   timed-out request's own end lands anywhere after, `breaker.tripped`
 *   follows, and only after it the requests still in flight are cancelled
 *   (their messages may still come meanwhile); an interrupt cancels the
 *   in-flight requests and reports the unsent ones;
 * - a run whose ready check failed reports every request unsent.
 *
 * The choices come from a tape of integers (fast-check shrinks it), then
 * from a generator seeded by the spec, so every tape makes a whole run.
 */
import fc from 'fast-check';
import type { BenchEvent, RequestOutcome, RunStarted } from '#shared/protocol/protocol.ts';
import type { RequestEndStatus, StopCause, TimeoutKind } from '#shared/types.ts';

export interface StreamSpec {
  n: number;
  /** Concurrency limit; null: none. */
  limit: number | null;
  failFast: boolean;
  /** How the run may stop early: an interrupt (at a time the tape picks), or the ready check failed. */
  stop: 'none' | 'interrupt' | 'never_started';
  tape: number[];
  /** Seeds the choices made once the tape runs out. */
  seed: number;
}

export const streamSpecArb: fc.Arbitrary<StreamSpec> = fc.integer({ min: 1, max: 10 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    limit: fc.option(fc.integer({ min: 1, max: n }), { nil: null }),
    failFast: fc.boolean(),
    stop: fc.constantFrom<StreamSpec['stop']>('none', 'none', 'interrupt', 'never_started'),
    tape: fc.array(fc.nat({ max: 1_000 }), { maxLength: 300 }),
    seed: fc.integer(),
  }),
);

interface Req {
  index: number;
  id: string;
  attempt: number;
  firstSentT: number | null;
  /** Messages of the current attempt so far (bounded, so every run ends). */
  messages: number;
  firstToken: number | null;
  firstAudio: number | null;
  tokens: number;
  audio: number;
  /** The end the run decided for it (a stop's cancellation, a fired timeout), not emitted yet. */
  pendingEnd: { status: RequestEndStatus; stoppedBy: StopCause | null; kind?: TimeoutKind } | null;
  /** True once its cancellation waits for `breaker.tripped` to be emitted. */
  awaitsTrip: boolean;
}

const TIMEOUT_KINDS: TimeoutKind[] = ['total', 'first_byte', 'idle'];

/** The run's events: `run.started`, then every request's events in an order the engine can emit. */
export function generateStream(spec: StreamSpec): BenchEvent[] {
  return new RunSimulation(spec).run();
}

/** The choices: the tape first, then xorshift from the seed. */
class Choices {
  private pos = 0;
  private x: number;

  constructor(
    private readonly tape: number[],
    seed: number,
  ) {
    this.x = seed >>> 0 || 1;
  }

  /** A number in [0, k). */
  pick(k: number): number {
    if (k <= 1) return 0;
    if (this.pos < this.tape.length) return this.tape[this.pos++] % k;
    this.x ^= this.x << 13;
    this.x ^= this.x >>> 17;
    this.x ^= this.x << 5;
    return (this.x >>> 0) % k;
  }
}

const id = (i: number) => `r-${i}`;

/** One run of the dispatcher, step by step: each step takes one of the moves the engine could make next. */
class RunSimulation {
  private readonly out: BenchEvent[];
  private readonly choices: Choices;
  private readonly limit: number;
  private t = 0;
  private arrived = 0;
  private startedCount = 0;
  private readonly inFlight = new Map<number, Req>();
  private stopped: StopCause | null = null;
  /** The breaker's trip, decided but `breaker.tripped` not emitted yet. */
  private trip: { cause: Req; kind: TimeoutKind; inFlight: number; queued: number } | null = null;
  private tripped = false;
  private interruptAt: number;

  constructor(private readonly spec: StreamSpec) {
    this.out = [started(spec)];
    this.choices = new Choices(spec.tape, spec.seed);
    this.limit = spec.limit ?? Number.POSITIVE_INFINITY;
    this.interruptAt = spec.stop === 'interrupt' ? this.pick(4 * spec.n + 2) : -1;
  }

  run(): BenchEvent[] {
    if (this.spec.stop === 'never_started') {
      for (let i = 0; i < this.spec.n; i++) this.end(null, i, 'not_dispatched', null);
      return this.out;
    }
    for (;;) {
      if (this.interruptAt >= 0 && this.out.length >= this.interruptAt && !this.stopped) {
        this.interruptAt = -1;
        this.stopRun('interrupt');
        continue;
      }
      const moves = this.moves();
      if (moves.length === 0) return this.out;
      moves[this.pick(moves.length)]();
    }
  }

  private pick(k: number): number {
    return this.choices.pick(k);
  }

  private tick(): number {
    return (this.t += 1 + this.pick(4) * 0.2503);
  }

  /** What may happen next: an arrival, a start, the trip's event, each in-flight request's message, retry or end. */
  private moves(): (() => void)[] {
    const moves: (() => void)[] = [];
    const arrive = () => {
      this.out.push({ type: 'request.queued', t: this.tick(), index: this.arrived, requestId: id(this.arrived) });
      this.arrived++;
    };
    if (!this.stopped && this.arrived < this.spec.n) moves.push(arrive, arrive);
    if (!this.stopped && this.startedCount < this.arrived && this.inFlight.size < this.limit)
      moves.push(() => this.start());
    if (this.trip && !this.tripped) moves.push(() => this.emitTrip());
    for (const r of this.inFlight.values()) {
      // A timed-out attempt was aborted: no more of its messages. A cancelled one streams until its socket closes.
      if (r.messages < 3 && r.pendingEnd?.status !== 'timed_out')
        moves.push(
          () => this.message(r),
          () => this.message(r),
        );
      const p = r.pendingEnd;
      if (p) {
        moves.push(() => this.finish(r, p.status, p.stoppedBy, p.kind));
        continue;
      }
      if (r.awaitsTrip) continue;
      if (!this.stopped && r.attempt < 4) moves.push(() => this.send(r)); // a transport failure, retried
      moves.push(() => this.finish(r, this.pick(2) === 0 ? 'completed' : 'failed', null));
      if (this.pick(3) === 0) moves.push(() => this.timeOut(r));
    }
    return moves;
  }

  private start(): void {
    const index = this.startedCount++;
    if (this.pick(8) === 7) return this.end(null, index, 'failed', null); // its prompt could not be prepared
    const r: Req = {
      index,
      id: id(index),
      attempt: 0,
      firstSentT: null,
      messages: 0,
      firstToken: null,
      firstAudio: null,
      tokens: 0,
      audio: 0,
      pendingEnd: null,
      awaitsTrip: false,
    };
    this.inFlight.set(index, r);
    this.send(r);
  }

  private emitTrip(): void {
    const { cause, kind, inFlight, queued } = this.trip!;
    this.out.push({
      type: 'breaker.tripped',
      t: this.tick(),
      cause: { requestIndex: cause.index, requestId: cause.id, kind, elapsedS: 1 },
      inFlight,
      queued,
    });
    this.tripped = true;
    for (const r of this.inFlight.values())
      if (r.awaitsTrip) r.pendingEnd = { status: 'cancelled_after_timeout', stoppedBy: 'breaker' };
  }

  private stopRun(cause: StopCause): void {
    this.stopped = cause;
    // The unsent requests, reported in one block one microtask after the stop.
    for (let i = this.startedCount; i < this.spec.n; i++) this.end(null, i, 'not_dispatched', cause);
    this.startedCount = this.spec.n;
    for (const r of this.inFlight.values()) {
      if (r.pendingEnd) continue;
      if (cause === 'interrupt') r.pendingEnd = { status: 'cancelled', stoppedBy: 'interrupt' };
      else r.awaitsTrip = true;
    }
  }

  private send(r: Req): void {
    r.attempt++;
    r.messages = 0;
    r.firstToken = null;
    r.firstAudio = null;
    r.tokens = 0;
    r.audio = 0;
    const ts = this.tick();
    if (r.firstSentT === null) r.firstSentT = ts;
    this.out.push({ type: 'request.sent', t: ts, index: r.index, requestId: r.id, attempt: r.attempt });
  }

  /** One SSE message: `first_token`, `first_audio`, `progress` in the order the engine emits them, any of them. */
  private message(r: Req): void {
    r.messages++;
    const ts = this.tick();
    const what = this.pick(8);
    if (what & 1 && r.firstToken === null) {
      r.firstToken = ts;
      r.tokens = Math.max(r.tokens, 1);
      this.out.push({ type: 'request.first_token', t: ts, index: r.index, ttftS: ts / 1000 });
    }
    if (what & 2 && r.firstAudio === null) {
      r.firstAudio = ts;
      this.out.push({ type: 'request.first_audio', t: ts, index: r.index, audioTtfpS: ts / 1000 });
    }
    if (what & 4 || (what & 3) === 0) {
      r.tokens += this.pick(3);
      r.audio += this.pick(3) * 0.25;
      this.out.push({ type: 'request.progress', t: ts, index: r.index, outputTokens: r.tokens, audioS: r.audio });
    }
  }

  private timeOut(r: Req): void {
    const kind = TIMEOUT_KINDS[this.pick(3)];
    if (this.spec.failFast && !this.stopped) {
      this.trip = { cause: r, kind, inFlight: this.inFlight.size, queued: this.arrived - this.startedCount };
      r.pendingEnd = { status: 'timed_out', stoppedBy: null, kind };
      this.stopRun('breaker');
      return;
    }
    this.finish(r, 'timed_out', null, kind);
  }

  private finish(r: Req, status: RequestEndStatus, by: StopCause | null, kind?: TimeoutKind): void {
    this.inFlight.delete(r.index);
    this.end(r, r.index, status, by, kind);
  }

  private end(r: Req | null, index: number, status: RequestEndStatus, by: StopCause | null, kind?: TimeoutKind): void {
    const o = outcome(r, index, status, by);
    const t = this.tick();
    if (status === 'completed') this.out.push({ type: 'request.completed', t, outcome: o });
    else if (status === 'failed') this.out.push({ type: 'request.failed', t, outcome: o });
    else if (status === 'timed_out') this.out.push({ type: 'request.timed_out', t, kind: kind ?? 'total', outcome: o });
    else if (status === 'not_dispatched') this.out.push({ type: 'request.unsent', t, outcome: o });
    else this.out.push({ type: 'request.cancelled', t, outcome: o });
  }
}

/** What the engine reports of a request at its end (`r` null: unsent). */
function outcome(r: Req | null, index: number, status: RequestEndStatus, by: StopCause | null): RequestOutcome {
  const sent = r !== null && r.attempt > 0;
  const o: RequestOutcome = {
    index,
    requestId: id(index),
    status,
    ttftS: sent && r.firstToken !== null ? r.firstToken / 1000 : 0,
    e2elS: status === 'completed' ? 0.5 + index / 10 : 0,
    audioTtfpS: sent && r.firstAudio !== null ? r.firstAudio / 1000 : 0,
    // The record holds what the throttled progress events last showed, or more.
    audioDurationS: sent ? r.audio + (status === 'completed' ? 0.5 : 0) : 0,
    outputTokens: sent ? r.tokens + (status === 'completed' ? 2 : 0) : 0,
    promptLen: 3 + index,
    attempts: sent ? r.attempt : 0,
    error: status === 'completed' ? '' : `${status} ${index}`,
    sentT: sent ? r.firstSentT : null,
  };
  if (by) o.stoppedBy = by;
  return o;
}

function started(spec: StreamSpec): RunStarted {
  return {
    type: 'run.started',
    t: 0,
    runId: 'r',
    startedAtMs: 1_000_000,
    numRequests: spec.n,
    maxConcurrency: spec.limit,
    requestRate: 'inf',
    failFast: spec.failFast,
    model: 'm',
    baseUrl: 'http://127.0.0.1:1',
  };
}

/**
 * The stream a dashboard receives from a reporter whose queue overflowed
 * (server/engine/report/remote.ts drops the events past its bound and goes
 * on): the same events in the same order, some spans missing.
 */
export function withDrops(events: BenchEvent[], drops: number[]): BenchEvent[] {
  if (drops.length === 0) return events;
  const gone = new Set<number>();
  for (let k = 0; k + 1 < drops.length; k += 2) {
    const from = 1 + (drops[k] % Math.max(1, events.length - 1));
    for (let i = from; i < Math.min(events.length, from + 1 + (drops[k + 1] % 4)); i++) gone.add(i);
  }
  return events.filter((_, i) => !gone.has(i));
}
