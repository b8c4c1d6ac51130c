/**
 * Whether a function's cost grows like a linear read of its input: its time on a hostile text beside a plain
 * char-by-char loop over the same text, each the best of a few runs (the best is what the machine's noise leaves
 * alone). A quadratic regular expression on 200 KB is ~10,000× the loop; a linear one a small multiple.
 */
function best(fn: () => unknown, runs: number): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

/** `work(text)`'s best time as a multiple of one linear pass over `text`. */
export function costRatio(text: string, work: (text: string) => unknown, runs = 5): number {
  let sink = 0;
  const linear = best(() => {
    for (let i = 0; i < text.length; i++) sink = (sink + text.charCodeAt(i)) | 0;
  }, runs);
  const ms = best(() => work(text), runs);
  if (sink === 0.5) throw new Error('unreachable: keeps the loop from being optimised away');
  // A floor of 0.05 ms: a loop that V8 makes faster than the timer can see must not make any cost look large.
  return ms / Math.max(linear, 0.05);
}
