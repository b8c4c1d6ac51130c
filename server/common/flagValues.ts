/**
 * A command-line flag's value read as a number, an integer, a list or
 * KEY=VALUE pairs, each misuse refused as a StallscopeError naming the flag
 * (the CLI prints it and exits 2). Shared by `stallscope bench` and the flags
 * its run probes read (server/engine/probes/), so every flag is refused in
 * the same words.
 */
import { StallscopeError } from '../../shared/errors.ts';

/** Refuses a flag's value: CONFIG_INVALID naming the flag. */
export function usage(detail: string, flag: string): never {
  throw new StallscopeError('CONFIG_INVALID', detail, flag);
}

export function number(s: string, flag: string): number {
  const v = Number(s);
  if (s.trim() === '' || Number.isNaN(v)) usage(`${flag} '${s}' is not a number`, flag);
  return v;
}

export function optNumber(s: string | undefined, flag: string): number | undefined {
  return s === undefined ? undefined : number(s, flag);
}

export function integer(s: string, flag: string): number {
  const v = number(s, flag);
  if (!Number.isInteger(v)) usage(`${flag} '${s}' is not an integer`, flag);
  return v;
}

export function optInteger(s: string | undefined, flag: string): number | undefined {
  return s === undefined ? undefined : integer(s, flag);
}

/** `a, b,,c` → `['a', 'b', 'c']`. */
export function list(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/** Repeated `KEY=VALUE` values (the value may hold `=`). */
export function pairs(items: readonly string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) usage(`${flag} '${item}' is not KEY=VALUE`, flag);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}
