import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { runSpecIssues } from '#shared/config/runSpec.ts';

describe('presets and the RunSpec schema', () => {
  it('serves the code2wav-hang preset as the incident asks, and every preset is a valid spec', async ({ app }) => {
    const { presets } = (await app.inject({ url: '/api/presets' })).json();
    const hang = presets.find((p: { id: string }) => p.id === 'code2wav-hang');
    expect(hang.spec).toMatchObject({
      target: { kind: 'embedded', faults: [{ phase: 'hift', kind: 'block' }] },
      numPrompts: 1088,
      maxConcurrency: 10,
      requestRate: 'inf',
      failFast: true,
    });
    expect(hang.spec.target.watchdogTimeoutS).toBeGreaterThan(0);
    expect(hang.spec.target.watchdogTimeoutS).toBeLessThan(hang.spec.timeouts.totalS / 2);
    expect(hang.spec.timeouts.totalS).toBeLessThanOrEqual(10);
    expect(presets.map((p: { title: string }) => p.title)).toContain('Seed-TTS accuracy against a URL');
    for (const p of presets) expect(runSpecIssues(p.spec)).toEqual([]);
  });

  it('returns the RunSpec JSON Schema', async ({ app }) => {
    const s = (await app.inject({ url: '/api/schema/run-spec' })).json();
    expect(s.type).toBe('object');
    expect(Object.keys(s.properties)).toEqual(
      expect.arrayContaining(['target', 'dataset', 'timeouts', 'failFast', 'thresholds', 'metadata']),
    );
    expect(s.additionalProperties).toBe(false);
  });
});
