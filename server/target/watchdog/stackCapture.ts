/**
 * One-shot stack capture of a worker thread: opens an inspector link,
 * captures, closes it. The watchdog keeps a link open instead (see
 * inspectorLink.ts); this is for callers that capture once.
 */
import { InspectorLink, type CaptureResult } from './inspectorLink.ts';

export type { CaptureResult } from './inspectorLink.ts';

export async function captureWorkerStack(threadId: number, whilePaused: () => boolean, timeoutMs = 1500): Promise<CaptureResult> {
  const link = new InspectorLink(timeoutMs);
  const t0 = performance.now();
  try {
    const r = await link.capture(threadId, whilePaused);
    return { ...r, durationMs: performance.now() - t0 };
  } finally {
    await link.close();
  }
}
