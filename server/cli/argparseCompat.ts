/**
 * Where node:util parseArgs and Python's argparse read a command line
 * differently, so a `vllm bench serve` line pastes as is: negative numbers
 * as values, multi-value (`nargs`) flags, and numbers as Python's float()
 * reads them.
 */
import type { ParseArgsConfig } from 'node:util';

/** A value argparse would take as a negative number, where parseArgs sees an option. */
const NEGATIVE_NUMBER = /^-\d|^-\.\d|^-inf/i;

/**
 * `--flag -1` → `--flag=-1` for flags that take a value. parseArgs (strict)
 * refuses `-1` after a string option as ambiguous; argparse accepts it, and
 * CI command lines must paste as is (`--omni-request-timeout-s -1` restores
 * the legacy 6 h). Only negative-number-looking values are joined, so a
 * missing value before a real option is still refused.
 */
export function joinNegativeValues(argv: string[], options: NonNullable<ParseArgsConfig['options']>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (
      a.startsWith('--') &&
      !a.includes('=') &&
      options[a.slice(2)]?.type === 'string' &&
      next !== undefined &&
      NEGATIVE_NUMBER.test(next)
    ) {
      out.push(`${a}=${next}`);
      i++;
    } else {
      out.push(a);
    }
  }
  return out;
}

/**
 * argparse flags that take several values: `--goodput ttft:500 tpot:50`
 * (nargs '+'), `--metadata version=0.3.3 tp=1` and `--header k=v …`
 * (nargs '*', so the flag may also come with no value at all).
 */
const MULTI_VALUE: Record<string, '+' | '*'> = { goodput: '+', metadata: '*', header: '*' };

/**
 * `--goodput a b` → `--goodput a --goodput b`: parseArgs takes one value per
 * occurrence and refuses positionals, argparse takes every value up to the
 * next option. Only for MULTI_VALUE flags, so a stray positional elsewhere
 * is still refused. A nargs '*' flag with no value is dropped (argparse
 * stores an empty list). Repeating a flag accumulates its values (argparse
 * would keep the last occurrence only; the README documents them as
 * repeatable).
 */
export function expandMultiValueFlags(argv: string[]): string[] {
  const out: string[] = [];
  let flag: string | null = null; // the multi-value flag whose values are being read
  let first = false; // its first value follows it as parseArgs expects
  const dropIfEmpty = (): void => {
    if (flag && first && MULTI_VALUE[flag.slice(2)] === '*') out.pop(); // `--metadata` alone: no values
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (flag && !a.startsWith('-')) {
      if (first) out.push(a);
      else out.push(flag, a);
      first = false;
      continue;
    }
    dropIfEmpty();
    flag = null;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    out.push(a);
    // `--goodput=a` carries its one value; argparse then takes no more (a following `b` is a stray positional).
    if (a.startsWith('--') && !a.includes('=') && MULTI_VALUE[a.slice(2)]) {
      flag = a;
      first = true;
    }
  }
  dropIfEmpty();
  return out;
}

/** Python's float() of a string: decimal (underscores between digits allowed), inf/infinity; NaN for anything else (hex, empty). */
export function pyFloatValue(text: string): number {
  const t = text.trim();
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (!/^[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d(_?\d)*)?$/.test(t)) return NaN;
  return Number(t.replace(/_/g, ''));
}
