/**
 * One request's hooks, as a class rather than an object of closures: see
 * ParserHooks in http/attempt.ts for the measurement that keeps it so.
 */
import type { Breaker, TimeoutReport } from '../stopRules/breaker.ts';
import type { RequestRecord } from '../records/record.ts';
import type { MessageInfo, TimeoutError } from '../transport/index.ts';
import type { RunEvents } from '../records/events.ts';
import type { RunnerHooks } from './requestRunner.ts';

export class RequestHooks implements RunnerHooks {
  /** The runner makes a fresh record per attempt; the hooks read the latest one. */
  private current: RequestRecord | null = null;

  constructor(
    private readonly index: number,
    private readonly requestId: string,
    private readonly events: RunEvents,
    private readonly breaker: Breaker,
    /** Where the time of the first send is kept (the request table). */
    private readonly sent: { setSentT(index: number, t: number): void },
    private readonly stopSignal: AbortSignal,
    private readonly timeoutHook?: (r: TimeoutReport) => void,
    /** Progress for the no_progress stop rule (a send, a response byte); absent without that rule. */
    private readonly progress?: () => void,
  ) {
    // Called per response chunk: only a run with the rule has one.
    this.onBytes = progress;
  }

  readonly onBytes?: () => void;

  /** The run's stop reason once the breaker or an interrupt stopped it (set synchronously by the trip). */
  stopped(): unknown {
    return this.stopSignal.aborted ? this.stopSignal.reason : undefined;
  }

  onAttempt(attempt: number, record: RequestRecord): void {
    this.current = record;
    this.sent.setSentT(this.index, this.events.nowT()); // the first send's time: later ones leave it
    this.progress?.();
    this.events.emit({ type: 'request.sent', index: this.index, requestId: this.requestId, attempt });
  }

  onTimeout(e: TimeoutError): void {
    const r = { index: this.index, requestId: this.requestId, kind: e.kind, elapsedS: e.elapsedS };
    this.breaker.report(r);
    this.timeoutHook?.(r);
  }

  onMessage(info: MessageInfo): void {
    const rec = this.current;
    if (!rec) return;
    if (info.firstToken)
      this.events.emit({ type: 'request.first_token', index: this.index, ttftS: info.ts - rec.startTime });
    if (info.firstAudio)
      this.events.emit({ type: 'request.first_audio', index: this.index, audioTtfpS: info.ts - rec.startTime });
    this.events.progress(this.index, rec.outputTokens, rec.audioDuration);
  }

  onWarning(message: string): void {
    this.events.emit({ type: 'run.warning', index: this.index, message });
  }
}
