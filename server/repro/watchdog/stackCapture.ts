/**
 * One-shot stack capture of a worker thread: opens an inspector link,
 * captures, closes it. The watchdog keeps a link open instead (see
 * inspectorLink.ts); this is for callers that capture once.
 */
import { InspectorLink, type CaptureResult } from './inspectorLink.ts';

export type { CaptureResult } from './inspectorLink.ts';

export async function captureWorkerStack(
  threadId: number,
  whilePaused: () => boolean,
  timeoutMs = 1500,
): Promise<CaptureResult> {
  const link = new InspectorLink(timeoutMs);
  try {
    // The capture's own duration includes attaching and enabling the debugger, the one-shot cost.
    return await link.capture(threadId, whilePaused);
  } finally {
    await link.close();
  }
}
