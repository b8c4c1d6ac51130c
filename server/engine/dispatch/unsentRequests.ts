/**
 * The requests a stopped run never started (queued, or not arrived yet):
 * they are the dataset's tail from the first one not started, ended
 * together in one step and one event (docs/design.md#bulk-unsent), so a
 * million of them cost the stop no more than ten.
 */

/**
 * Starts one microtask after the stop (where the queue's rejections used to
 * land), then reads where the unsent requests begin: nothing starts
 * once stopped, and nothing arrives.
 */
export async function reportUnsent(firstUnstarted: () => number, unsentFrom: (from: number) => void): Promise<void> {
  await Promise.resolve();
  unsentFrom(firstUnstarted());
}
