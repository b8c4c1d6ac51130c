/**
 * The first wave's bodies are built before the clock (docs/design.md#first-wave): `prebuild` builds them,
 * `job` then takes each once (the same bytes it would have built), and builds any other request itself.
 */
import { describe, expect, it } from 'vitest';
import { setUpRun } from '#server/engine/run/runSetup.ts';
import { buildRequestBody } from '#server/engine/backends/requestBody.ts';
import { testBenchConfig } from '#test/helpers/benchConfig.ts';

const text = (b: string | Uint8Array): string => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'));

describe('first-wave bodies built before the clock', () => {
  it('job takes a prebuilt body once, without building it, and builds the others', async () => {
    const config = testBenchConfig('http://127.0.0.1:1', {
      numPrompts: 6,
      dataset: { name: 'random', inputLen: 32, outputLen: 4 },
    });
    const r = await setUpRun(config, {});
    const expected = await Promise.all(r.data.samples.map(async (s) => text(await buildRequestBody(config, s))));
    await r.prebuild(3);
    const built: number[] = [];
    r.data.samples.forEach((s, i) => {
      const own = s.promptBytes!.bind(s);
      s.promptBytes = () => {
        built.push(i);
        return own();
      };
    });
    const bodies = [];
    for (let i = 0; i < 6; i++) bodies.push(text((await r.job(i, r.id(i))).body));
    expect(bodies).toEqual(expected);
    expect(built).toEqual([3, 4, 5]); // 0–2 were taken, not built again
    // Taken once: a second job for the same request builds its body (a prebuilt body is not kept for the run).
    expect(text((await r.job(0, r.id(0))).body)).toBe(expected[0]);
    expect(built).toEqual([3, 4, 5, 0]);
  });

  it('prebuilds no more than the run has (no body for a request past its end)', async () => {
    const config = testBenchConfig('http://127.0.0.1:1', { numPrompts: 2 });
    const r = await setUpRun(config, {});
    await r.prebuild(10);
    expect((await r.job(1, r.id(1))).requestId).toBe('test-1');
  });

  it('holds at most 8 MB of prebuilt bodies: past that, requests build their own when sent', async () => {
    // 8,192-word prompts are ~57 KB each: 8 MB holds about 147 of the 300 asked for.
    const config = testBenchConfig('http://127.0.0.1:1', {
      numPrompts: 300,
      dataset: { name: 'random', inputLen: 8192, outputLen: 4 },
    });
    const r = await setUpRun(config, {});
    await r.prebuild(300);
    const built: number[] = [];
    r.data.samples.forEach((s, i) => {
      const own = s.promptBytes!.bind(s);
      s.promptBytes = () => {
        built.push(i);
        return own();
      };
    });
    let held = 0;
    for (let i = 0; i < 300; i++) {
      const body = (await r.job(i, r.id(i))).body;
      if (!built.includes(i)) held += body.length;
    }
    expect(built.length).toBeGreaterThan(100); // the cap stopped the prebuild well before 300
    expect(built[0]).toBeGreaterThan(100); // and the first ones were prebuilt
    expect(held).toBeGreaterThanOrEqual(8 * 1024 * 1024);
    expect(held).toBeLessThan(8 * 1024 * 1024 + 64 * 1024); // one body past the cap at most
  });
});
