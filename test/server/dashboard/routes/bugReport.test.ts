/**
 * GET /api/runs/:id/report.md on the board's story (test/helpers/boardStory.ts):
 * one Markdown report with the story sentence, the board's sentence for the
 * run's own job (5 of 8, not 7 with the local runs), the linked build and
 * node, the nearest passing control with its links, the stack and the
 * dashboard's URLs; a local run's report speaks of the local runs.
 */
import { describe, expect } from 'vitest';
import { BUILD_URL, recordStory } from '#test/helpers/boardStory.ts';
import { test as it } from '#test/helpers/fixtures.ts';

describe('GET /api/runs/:id/report.md', () => {
  it('says what happened, the pattern, where it ran, the control, the stack and the links', async ({ app }) => {
    await recordStory(app);
    const r = await app.inject({ url: '/api/runs/bench-14607/report.md', headers: { host: '127.0.0.1:7077' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const md = r.body;
    const base = 'http://127.0.0.1:7077';
    expect(md.split('\n')[0]).toBe(
      '# build 14607 · mi325-agent-2 · minicpmo-accuracy (`bench-14607`): failed\\_closed',
    );
    // The story sentence of the run page.
    expect(md).toContain('Code2Wav op 5 stalled in hift');
    // The board's sentence for this job: five of its eight runs, the local runs apart; the rate and onset.
    expect(md).toContain(
      '**On the board:** fingerprint hift/blockForever seen in 5 of the last 8 runs of minicpmo-accuracy ' +
        '(builds 14528, 14598, 14604, 14606, 14607) on 3 nodes; passing controls 14500, 14541.',
    );
    expect(md).toMatch(/5 of 8 runs of its job \(63 %, 95 % interval 31 %–86 %\)/);
    expect(md).toContain('- Onset: last passing before the first stall: build 14500, commit `c0ffee14500`');
    // Where it ran, the build linked to its CI page.
    expect(md).toContain(`- Build: [build 14607](<${BUILD_URL('14607')}>)`);
    expect(md).toContain('- Node: `mi325-agent-2`');
    expect(md).toContain('- Commit: `c0ffee14607`');
    // The nearest passing control of the same job, linked to its build, its run page and Compare.
    expect(md).toContain(
      `- [build 14541](<${BUILD_URL('14541')}>) on \`mi325-agent-2\`, commit \`c0ffee14541\`: ` +
        `[run](<${base}/#/runs/bench-14541>), [compare with this run](<${base}/#/compare?ids=bench-14607,bench-14541>)`,
    );
    // The stack, as a code block.
    expect(md).toContain('## Stack (watchdog, worker 0, op 5, phase hift)\n\n```text\nblockForever (');
    expect(md).toContain('## Liveness at the stall\n\nNot probed.');
    // The dashboard's URLs, at the address the report was fetched from.
    expect(md).toContain(`- [Run page](<${base}/#/runs/bench-14607>)`);
    expect(md).toMatch(
      new RegExp(
        `- \\[Where else it occurred\\]\\(<${base}/#/stalls\\?fp=[0-9a-f]{12}&meta=ci_pipeline%3Dvllm-omni%20ci_step%3Dminicpmo-accuracy>\\)`,
      ),
    );
    expect(md).toContain(`- [Evidence file (JSON)](<${base}/api/runs/bench-14607/export?format=evidence>)`);
  });

  it('a local run is reported against the local runs; a run that passed has no board section', async ({ app }) => {
    await recordStory(app);
    const local = (await app.inject({ url: '/api/runs/local-2/report.md' })).body;
    expect(local.split('\n')[0]).toBe('# Run `local-2`: failed\\_closed');
    expect(local).toContain('seen in 2 of the last 3 runs without CI metadata; passing controls local-ok.');
    expect(local).toContain('2 of 3 runs of the runs without CI metadata');
    const passed = (await app.inject({ url: '/api/runs/bench-14541/report.md' })).body;
    expect(passed).not.toContain('On the board');
    expect(passed).not.toContain('## Stack');
  });

  it('an unknown run is a 404 with its code', async ({ app }) => {
    const r = await app.inject({ url: '/api/runs/nope/report.md' });
    expect(r.statusCode).toBe(404);
    expect(r.json()).toMatchObject({ code: 'API_NOT_FOUND' });
  });

  it('the evidence file carries the same board context and the first timeout’s fingerprint', async ({ app }) => {
    await recordStory(app);
    const evidence = async (id: string) =>
      (await app.inject({ url: `/api/runs/${id}/export?format=evidence` })).json() as Record<string, any>;
    const e = await evidence('bench-14607');
    expect(e.board).toMatchObject({
      scope: 'job',
      pipeline: 'vllm-omni',
      step: 'minicpmo-accuracy',
      occurrences: 5,
      scopeRuns: 8,
      hangRate: 5 / 8,
      sentence: expect.stringContaining('seen in 5 of the last 8 runs of minicpmo-accuracy'),
      onset: { lastPassing: { runId: 'bench-14500' }, firstStalled: { runId: 'bench-14528' } },
      nearestControl: {
        runId: 'bench-14541',
        build: '14541',
        buildUrl: BUILD_URL('14541'),
        node: 'mi325-agent-2',
        commit: 'c0ffee14541',
      },
    });
    expect(e.firstTimeout).toMatchObject({ index: 2, phase: 'hift', fingerprint: { phase: 'hift', frames: [] } });
    expect(e.firstTimeout.fingerprint.fingerprint).toMatch(/^[0-9a-f]{12}$/);
    // A run whose only evidence is its first timeout: the board files it under that phase-only fingerprint.
    const q2 = await evidence('bench-q2');
    expect(q2.board).toMatchObject({ step: 'qwen-accuracy', occurrences: 1, label: 'hift' });
    expect(q2.board.fingerprint).toBe(q2.firstTimeout.fingerprint.fingerprint);
    expect((await evidence('bench-14541')).board).toBeNull();
  });
});
