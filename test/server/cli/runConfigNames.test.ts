/**
 * The names the one validator words its messages with (shared/config/runConfigNames.ts) are real: each config path
 * is a field of RunConfigSchema, each spec name a field of RunSpecSchema, each flag one `stallscope bench` takes.
 * A renamed flag or field would otherwise leave refusals naming something the user cannot type.
 */
import { describe, expect, it } from 'vitest';
import type { TSchema } from 'typebox';
import { RUN_CONFIG_NAMES } from '#shared/config/runConfigNames.ts';
import { RunConfigSchema } from '#shared/config/runConfig.ts';
import { RunSpecSchema } from '#shared/config/runSpec.ts';
import { ALL_BENCH_OPTIONS } from '#server/cli/benchFlags.ts';

/** Whether `path` (dotted) names a field of `schema`, looking through unions and intersections. */
function hasPath(schema: TSchema, path: readonly string[]): boolean {
  if (path.length === 0) return true;
  const s = schema as TSchema & { properties?: Record<string, TSchema>; anyOf?: TSchema[]; allOf?: TSchema[] };
  const next = s.properties?.[path[0]];
  if (next && hasPath(next, path.slice(1))) return true;
  return [...(s.anyOf ?? []), ...(s.allOf ?? [])].some((branch) => hasPath(branch, path));
}

const entries = Object.entries(RUN_CONFIG_NAMES);

describe('run configuration names', () => {
  it.each(entries)('%s is a RunConfig field', (path) => {
    expect(hasPath(RunConfigSchema, path.split('.'))).toBe(true);
  });

  it.each(entries.filter(([, n]) => n.spec))('%s: its spec name is a RunSpec field', (_path, names) => {
    expect(hasPath(RunSpecSchema, names.spec!.split('.'))).toBe(true);
  });

  it.each(entries.filter(([, n]) => n.flag))('%s: each flag it names is a bench flag', (_path, names) => {
    for (const flag of names.flag!.split(' / ')) {
      expect(flag.startsWith('--')).toBe(true);
      expect(Object.keys(ALL_BENCH_OPTIONS)).toContain(flag.slice(2));
    }
  });

  it('the walk finds nothing that is not there', () => {
    expect(hasPath(RunConfigSchema, ['limits', 'timeouts', 'nonsense'])).toBe(false);
    expect(hasPath(RunSpecSchema, ['target', 'nonsense'])).toBe(false);
  });
});
