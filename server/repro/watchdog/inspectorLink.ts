/**
 * One inspector session from the main thread to the Code2Wav worker threads
 * (NodeWorker domain), kept for the life of the watchdog. Each worker gets
 * `Debugger.enable` once, ahead of time (`prepare`), because enabling is the
 * slow step (tens of ms: V8 reports every script); a capture is then only
 * `Debugger.pause` → read the paused call frames → `Debugger.resume`. V8
 * services the pause interrupt also while a thread spins or sits in
 * Atomics.wait, so a hung worker can be inspected without being disturbed.
 * `close()` disables the debugger in every worker, detaches and disconnects.
 */
import { Session } from 'node:inspector';
import type { StackFrame } from '../../../shared/types.ts';
import { MAX_STACK_FRAMES } from '../../../shared/stalls/stallReport.ts';
import { toFrame, type CdpFrame, type ScriptInfo } from './frames.ts';
import type { SourceMapIndex } from './sourceMap.ts';

export interface CaptureResult {
  frames: StackFrame[];
  /** Epoch ms at which the worker was seen paused (0 if it never paused). */
  capturedAtMs: number;
  /** What `whilePaused` returned (false if the worker never paused). */
  verified: boolean;
  durationMs: number;
  error?: string;
}

/** A message from a worker's inspector session: a reply (with `id`) or an event (with `method`). */
interface WorkerCdpMessage {
  id?: number;
  result?: unknown;
  error?: { message: string };
  method?: string;
  params?: { scriptId?: string; url?: string; sourceMapURL?: string; callFrames?: CdpFrame[] };
}

interface Target {
  sessionId: string;
  scripts: Map<string, ScriptInfo>;
  pending: Map<number, (m: WorkerCdpMessage) => void>;
  onPaused: ((frames: CdpFrame[]) => void) | null;
  onResumed: (() => void) | null;
  paused: boolean;
  enabled: Promise<void> | null;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]);
}

export class InspectorLink {
  private session: Session | null = null;
  private ready: Promise<void> | null = null;
  private readonly targets = new Map<number, Target>();
  private readonly waiters = new Map<number, Array<(t: Target) => void>>();
  private readonly maps = new Map<string, SourceMapIndex | null>();
  private nextId = 1;

  constructor(private readonly timeoutMs = 1500) {}

  private open(): Promise<void> {
    if (this.ready) return this.ready;
    const s = new Session();
    s.connect();
    this.session = s;
    // The inspector numbers its targets itself; the thread id is in the title: "[worker <threadId>] <name>".
    s.on('NodeWorker.attachedToWorker', ({ params }) => {
      const m = /^\[worker (\d+)\]/.exec(params.workerInfo.title ?? '');
      if (!m) return;
      const threadId = Number(m[1]);
      const t: Target = {
        sessionId: params.sessionId,
        scripts: new Map(),
        pending: new Map(),
        onPaused: null,
        onResumed: null,
        paused: false,
        enabled: null,
      };
      this.targets.set(threadId, t);
      for (const w of this.waiters.get(threadId) ?? []) w(t);
      this.waiters.delete(threadId);
    });
    s.on('NodeWorker.detachedFromWorker', ({ params }) => {
      for (const [id, t] of this.targets) if (t.sessionId === params.sessionId) this.targets.delete(id);
    });
    s.on('NodeWorker.receivedMessageFromWorker', ({ params }) => {
      const t = [...this.targets.values()].find((x) => x.sessionId === params.sessionId);
      if (!t) return;
      const msg = JSON.parse(params.message) as WorkerCdpMessage;
      if (msg.id !== undefined) {
        t.pending.get(msg.id)?.(msg);
        t.pending.delete(msg.id);
      } else if (msg.method === 'Debugger.scriptParsed')
        t.scripts.set(msg.params?.scriptId ?? '', {
          url: msg.params?.url ?? '',
          sourceMapURL: msg.params?.sourceMapURL,
        });
      else if (msg.method === 'Debugger.paused') {
        t.paused = true;
        // A pause nobody waits for (a repeated request that landed late) is undone at once.
        if (t.onPaused) t.onPaused(msg.params?.callFrames ?? []);
        else this.send(t, 'Debugger.resume').catch(() => undefined);
      } else if (msg.method === 'Debugger.resumed') {
        t.paused = false;
        t.onResumed?.();
      }
    });
    this.ready = this.post('NodeWorker.enable', { waitForDebuggerOnStart: false }).then(() => undefined);
    return this.ready;
  }

  private post(method: string, params: object = {}): Promise<unknown> {
    return new Promise((resolve, reject) =>
      this.session!.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  }

  private send(t: Target, method: string, params: object = {}): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      t.pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      this.session!.post(
        'NodeWorker.sendMessageToWorker',
        { sessionId: t.sessionId, message: JSON.stringify({ id, method, params }) },
        (err) => {
          if (err) {
            t.pending.delete(id);
            reject(err);
          }
        },
      );
    });
  }

  private async target(threadId: number): Promise<Target> {
    await this.open();
    const known = this.targets.get(threadId);
    if (known) return known;
    const attached = new Promise<Target>((resolve) => {
      const list = this.waiters.get(threadId) ?? [];
      list.push(resolve);
      this.waiters.set(threadId, list);
    });
    return withTimeout(attached, this.timeoutMs, `attaching to worker thread ${threadId}`);
  }

  /** Attaches to the worker and enables its debugger, so a later capture is fast. */
  async prepare(threadId: number): Promise<void> {
    const t = await this.target(threadId);
    t.enabled ??= withTimeout(this.send(t, 'Debugger.enable'), this.timeoutMs * 4, 'Debugger.enable').then(
      () => undefined,
    );
    t.enabled.catch(() => {
      t.enabled = null;
    });
    return t.enabled;
  }

  /**
   * Pauses the worker, calls `whilePaused()` (the caller re-checks that the
   * same op is still at the same progress point), reads the frames, resumes.
   */
  async capture(threadId: number, whilePaused: () => boolean): Promise<CaptureResult> {
    const t0 = performance.now();
    const result: CaptureResult = { frames: [], capturedAtMs: 0, verified: false, durationMs: 0 };
    let t: Target | null = null;
    try {
      await this.prepare(threadId);
      t = await this.target(threadId);
      const target = t;
      const frames = new Promise<CdpFrame[]>((resolve) => {
        target.onPaused = resolve;
      });
      // A pause request that reaches the thread while it is still leaving the
      // previous pause can be lost, so the request is repeated until it lands.
      const deadline = performance.now() + this.timeoutMs;
      let callFrames: CdpFrame[] | null = null;
      while (!callFrames) {
        if (performance.now() > deadline)
          throw new Error(`waiting for the worker to pause timed out after ${this.timeoutMs} ms`);
        await withTimeout(this.send(t, 'Debugger.pause'), this.timeoutMs, 'Debugger.pause');
        callFrames = await Promise.race([frames, new Promise<null>((r) => setTimeout(() => r(null), 100))]);
        // An idle thread runs no JavaScript and cannot pause: if the work moved
        // on meanwhile, there is nothing left to capture.
        if (!callFrames && !whilePaused()) throw new Error('the worker moved on before it could be paused');
      }
      result.capturedAtMs = Date.now();
      result.verified = whilePaused();
      result.frames = callFrames
        .slice(0, MAX_STACK_FRAMES)
        .map((f) => toFrame(f, target.scripts.get(f.location.scriptId), this.maps));
    } catch (err) {
      result.error = err instanceof Error ? err.message : String(err);
    } finally {
      // Always resume — also when anything above failed or timed out.
      if (t) {
        t.onPaused = null;
        if (t.paused) {
          const target = t;
          const resumed = new Promise<void>((r) => {
            target.onResumed = r;
          });
          await withTimeout(this.send(t, 'Debugger.resume'), this.timeoutMs, 'Debugger.resume').catch(() => undefined);
          // Leave only once the thread has really left the pause.
          await withTimeout(resumed, this.timeoutMs, 'Debugger.resumed').catch(() => undefined);
          t.onResumed = null;
        }
      }
      result.durationMs = performance.now() - t0;
    }
    return result;
  }

  async close(): Promise<void> {
    if (!this.session) return;
    const s = this.session;
    await this.ready?.catch(() => undefined);
    await Promise.all(
      [...this.targets.values()].map(async (t) => {
        if (t.paused)
          await withTimeout(this.send(t, 'Debugger.resume'), this.timeoutMs, 'Debugger.resume').catch(() => undefined);
        if (t.enabled)
          await withTimeout(this.send(t, 'Debugger.disable'), this.timeoutMs, 'Debugger.disable').catch(
            () => undefined,
          );
        await this.post('NodeWorker.detach', { sessionId: t.sessionId }).catch(() => undefined);
      }),
    );
    await this.post('NodeWorker.disable').catch(() => undefined);
    s.disconnect();
    this.session = null;
    this.ready = null;
    this.targets.clear();
  }
}
