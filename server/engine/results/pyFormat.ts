/**
 * Python `str.format` specs used by vLLM's console summary, byte for byte:
 * `{:<40}`, `{:<10}`, `{:<10.2f}`, `{:<10.2%}` and `{s:{c}^{n}}`.
 */

/**
 * `format(x, '.2f')`. Python rounds the exact binary value half-to-even,
 * while `toFixed` rounds exact ties up (703.125 → "703.13" in JS, "703.12" in
 * Python). An exact tie at the third decimal needs x·8 to be an integer, so
 * only those values are rounded by hand.
 */
export function fixed2(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  if (Number.isInteger(x * 8) && Math.abs(x) < 1e12) {
    const thousandths = x * 1000; // exact: x·8 is an integer and x·1000 = (x·8)·125 < 2^53
    if (Math.abs(thousandths) % 10 === 5) {
      const sign = thousandths < 0 ? -1 : 1;
      const down = (Math.abs(thousandths) - 5) / 10; // hundredths below the tie
      const hundredths = down % 2 === 0 ? down : down + 1;
      const s = (hundredths / 100).toFixed(2);
      return sign < 0 && hundredths !== 0 ? `-${s}` : s;
    }
  }
  const s = x.toFixed(2);
  return s === '-0.00' ? '-0.00' : s;
}

export const left = (s: string, width: number): string => s.padEnd(width, ' ');

/** `"{:<40} {:<10}".format(label, value)` with value already formatted. */
export function row(label: string, value: string): string {
  return `${left(label, 40)} ${left(value, 10)}`;
}

/** `"{s:{c}^{n}}".format(s=title, c=fill, n=width)`: extra padding goes to the right. */
export function centre(title: string, fill: string, width = 50): string {
  const pad = Math.max(0, width - title.length);
  const l = Math.floor(pad / 2);
  return fill.repeat(l) + title + fill.repeat(pad - l);
}

/** `format(x, '.2%')`. */
export function percent2(x: number): string {
  return `${fixed2(x * 100)}%`;
}

/** Python's `str(float)`: `inf`, `10.0`, `0.5`. */
export function pyFloat(x: number): string {
  if (x === Infinity) return 'inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  return String(x);
}
