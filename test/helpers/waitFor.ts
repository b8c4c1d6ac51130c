/** Polls until `get` returns something truthy, or fails after `timeoutMs`. */
export async function waitFor<T>(
  get: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 5000,
  stepMs = 10,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v) return v;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
