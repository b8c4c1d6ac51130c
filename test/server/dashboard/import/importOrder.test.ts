/** The runs of one JSON-lines import are listed in their order in the file, not by their random id suffix. */
import { expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { readFileSync } from 'node:fs';

const FILE = 'detailed-append-jsonl-itls.json';
const TEXT = readFileSync(new URL(`../../../fixtures/vllm-results/${FILE}`, import.meta.url), 'utf8');

it('lists the 16 runs of a JSON-lines file as #1 … #16', async ({ app }) => {
  const r = await app.inject({
    method: 'POST',
    url: '/api/import',
    headers: { 'content-type': 'text/plain', 'x-filename': FILE },
    payload: TEXT,
  });
  expect(r.statusCode, r.body).toBe(201);
  const { runs } = (await app.inject({ url: '/api/runs?limit=16' })).json() as { runs: { label: string }[] };
  expect(runs.map((x) => x.label)).toEqual(Array.from({ length: 16 }, (_, i) => `${FILE} #${i + 1}`));
});
