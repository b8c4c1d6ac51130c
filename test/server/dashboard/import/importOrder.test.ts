/**
 * The runs of one JSON-lines import are listed by when each happened (their
 * `date` in the file, newest first), not by their random id suffix nor by
 * when they were imported.
 */
import { expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { readFileSync } from 'node:fs';

const FILE = 'detailed-append-jsonl-itls.json';
const TEXT = readFileSync(new URL(`../../../fixtures/vllm-results/${FILE}`, import.meta.url), 'utf8');

it('lists the 16 runs of a JSON-lines file by their dates in the file: #16 (the last appended) … #1', async ({
  app,
}) => {
  const r = await app.inject({
    method: 'POST',
    url: '/api/import',
    headers: { 'content-type': 'text/plain', 'x-filename': FILE },
    payload: TEXT,
  });
  expect(r.statusCode, r.body).toBe(201);
  const { runs } = (await app.inject({ url: '/api/runs?limit=16' })).json() as { runs: { label: string }[] };
  expect(runs.map((x) => x.label)).toEqual(Array.from({ length: 16 }, (_, i) => `${FILE} #${16 - i}`));
});
