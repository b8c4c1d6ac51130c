/**
 * Captures the live JavaScript stack of a Code2Wav worker thread from the
 * main thread, through the inspector: attach to the worker target
 * (NodeWorker domain), `Debugger.enable`, `Debugger.pause`, read the paused
 * call frames, `Debugger.resume`, detach. V8 services the pause interrupt
 * also while the thread spins or sits in Atomics.wait, so a hung worker can
 * be inspected without being interrupted. Every step has a deadline, the
 * worker is always resumed, and the session is always closed.
 */
import { Session } from 'node:inspector';
import { fileURLToPath } from 'node:url';
import type { StackFrame } from '../../../shared/types.ts';
import { originalPosition, parseInlineSourceMap, type SourceMapIndex } from './sourceMap.ts';

export interface CaptureResult {
  frames: StackFrame[];
  /** Epoch ms at which the worker was seen paused (0 if it never paused). */
  capturedAtMs: number;
  /** What `whilePaused` returned (false if the worker never paused). */
  verified: boolean;
  durationMs: number;
  error?: string;
}

interface CdpFrame {
  functionName: string;
  location: { scriptId: string; lineNumber: number; columnNumber?: number };
  url?: string;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms); }),
  ]);
}

function toFile(url: string): string {
  if (url.startsWith('data:')) return '<code2wav worker bundle>';
  if (url.startsWith('file:')) {
    try { return fileURLToPath(url); } catch { return url; }
  }
  return url;
}

function toFrame(f: CdpFrame, script: { url: string; sourceMapURL?: string } | undefined, maps: Map<string, SourceMapIndex | null>): StackFrame {
  const url = script?.url || f.url || '';
  const frame: StackFrame = {
    function: f.functionName || '(anonymous)',
    file: toFile(url),
    line: f.location.lineNumber + 1,
    column: (f.location.columnNumber ?? 0) + 1,
    language: 'js',
  };
  if (!script?.sourceMapURL) return frame;
  if (!maps.has(url)) maps.set(url, parseInlineSourceMap(script.sourceMapURL, url));
  const map = maps.get(url);
  const pos = map ? originalPosition(map, f.location.lineNumber, f.location.columnNumber ?? 0) : null;
  return pos ? { ...frame, file: pos.file || frame.file, line: pos.line, column: pos.column } : frame;
}

/**
 * Pauses the worker with thread id `threadId`, calls `whilePaused()` (the
 * caller re-checks that the same op is still in the same phase), reads the
 * frames, and resumes it.
 */
export async function captureWorkerStack(threadId: number, whilePaused: () => boolean, timeoutMs = 1500): Promise<CaptureResult> {
  const t0 = performance.now();
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}) =>
    new Promise<any>((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  let workerSession: string | null = null;
  let paused = false;
  let nextId = 1;
  const pending = new Map<number, (m: any) => void>();
  const scripts = new Map<string, { url: string; sourceMapURL?: string }>();
  let onPaused: ((frames: CdpFrame[]) => void) | null = null;
  const maps = new Map<string, SourceMapIndex | null>();

  session.on('NodeWorker.receivedMessageFromWorker', ({ params }: any) => {
    if (params.sessionId !== workerSession) return;
    const msg = JSON.parse(params.message);
    if (msg.id !== undefined) { pending.get(msg.id)?.(msg); pending.delete(msg.id); }
    else if (msg.method === 'Debugger.scriptParsed') scripts.set(msg.params.scriptId, { url: msg.params.url, sourceMapURL: msg.params.sourceMapURL });
    else if (msg.method === 'Debugger.paused') { paused = true; onPaused?.(msg.params.callFrames); }
  });
  const send = (method: string, params: object = {}) =>
    new Promise<any>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, (m) => (m.error ? reject(new Error(`${method}: ${m.error.message}`)) : resolve(m.result)));
      session.post('NodeWorker.sendMessageToWorker', { sessionId: workerSession, message: JSON.stringify({ id, method, params }) }, (err) => {
        if (err) { pending.delete(id); reject(err); }
      });
    });

  const result: CaptureResult = { frames: [], capturedAtMs: 0, verified: false, durationMs: 0 };
  try {
    const attached = new Promise<string>((resolve) => {
      // The inspector numbers its targets itself; the thread id is in the title: "[worker <threadId>] <name>".
      session.on('NodeWorker.attachedToWorker', ({ params }: any) => {
        const m = /^\[worker (\d+)\]/.exec(params.workerInfo.title ?? '');
        if (m && Number(m[1]) === threadId) resolve(params.sessionId);
      });
    });
    await post('NodeWorker.enable', { waitForDebuggerOnStart: false });
    workerSession = await withTimeout(attached, timeoutMs, 'attaching to the worker');
    await withTimeout(send('Debugger.enable'), timeoutMs, 'Debugger.enable');
    const frames = new Promise<CdpFrame[]>((resolve) => { onPaused = resolve; });
    await withTimeout(send('Debugger.pause'), timeoutMs, 'Debugger.pause');
    const callFrames = await withTimeout(frames, timeoutMs, 'waiting for the worker to pause');
    result.capturedAtMs = Date.now();
    result.verified = whilePaused();
    result.frames = callFrames.map((f) => toFrame(f, scripts.get(f.location.scriptId), maps));
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    // Resume first (also if anything above failed), then take everything down.
    if (workerSession) {
      if (paused) await withTimeout(send('Debugger.resume'), timeoutMs, 'Debugger.resume').catch(() => undefined);
      await withTimeout(send('Debugger.disable'), timeoutMs, 'Debugger.disable').catch(() => undefined);
      await post('NodeWorker.detach', { sessionId: workerSession }).catch(() => undefined);
    }
    await post('NodeWorker.disable').catch(() => undefined);
    session.disconnect();
    result.durationMs = performance.now() - t0;
  }
  return result;
}
