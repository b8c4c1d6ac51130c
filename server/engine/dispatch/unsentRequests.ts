/**
 * The requests a stopped run never started (queued, or not arrived yet):
 * each is reported `not_dispatched`, in dataset order, PER_TURN per turn of
 * the event loop, so a million of them do not block it (the dashboard's
 * shutdown deadline is a timer).
 */
import { nextTurn, PER_TURN } from './perTurn.ts';

/**
 * Starts one microtask after the stop (where the queue's rejections used to
 * land), then reads where the never-started requests begin: nothing starts
 * once stopped, and nothing arrives.
 */
export async function reportUnsent(
  firstUnstarted: () => number,
  n: number,
  notDispatched: (index: number) => void,
): Promise<void> {
  await Promise.resolve();
  const from = firstUnstarted();
  for (let i = from; i < n; i++) {
    if (i > from && (i - from) % PER_TURN === 0) await nextTurn();
    notDispatched(i);
  }
}
