/**
 * docs/cli.md is what `npm run docs:cli` (scripts/cliDocs.ts) writes from the
 * CLI of this tree: a flag added to a table, or a help text changed, without
 * regenerating it fails here. The generator itself refuses a flag of the
 * bench table that nothing describes, and a description of a flag that is gone.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCH_OPTIONS } from '#server/cli/benchFlags.ts';
import { CLI_DOC, generateCliDocs, helpMismatches, renderCliDocs, type CliDocsInput } from '../../scripts/cliDocs.ts';
import { BENCH_GROUPS } from '../../scripts/cliDocs.benchHelp.ts';

const help = {
  main: 'usage: stallscope',
  repro: 'usage: repro',
  serve: 'usage: serve',
  asr: 'usage: asr-server',
  db: 'usage: db',
  token: 'usage: token',
};
const input = (benchFlags: CliDocsInput['benchFlags']): CliDocsInput => ({
  benchFlags,
  ignoredFlags: { tokenizer: { type: 'string', note: 'no tokenizer is loaded' } },
  groups: BENCH_GROUPS,
  help,
});

describe('docs/cli.md', () => {
  it('is what npm run docs:cli writes from the current flag tables and help texts', async () => {
    expect(readFileSync(CLI_DOC, 'utf8')).toBe(await generateCliDocs());
  });

  it('names every flag of the bench table, with its value and whether it repeats', () => {
    const md = renderCliDocs(input(BENCH_OPTIONS));
    for (const name of Object.keys(BENCH_OPTIONS)) expect(md).toContain(`\`--${name}`);
    expect(md).toContain('- `--metadata K=V` (repeatable): ');
    expect(md).toContain('- `-h`, `--help`: ');
    expect(md).toContain('- `--tokenizer VALUE`: no tokenizer is loaded');
  });

  it('a new flag without a description, or a description of a flag that is gone, stops the generator', () => {
    const added = { ...BENCH_OPTIONS, 'brand-new': { type: 'string' as const } };
    expect(helpMismatches(added, BENCH_GROUPS)).toEqual([
      '--brand-new is in the flag table but has no entry in scripts/cliDocs.benchHelp.ts',
    ]);
    expect(() => renderCliDocs(input(added))).toThrow(/--brand-new/);
    const { seed: _gone, ...withoutSeed } = BENCH_OPTIONS;
    expect(helpMismatches(withoutSeed, BENCH_GROUPS)).toEqual(['--seed is described but not in the flag table']);
  });
});
