/**
 * The CI outputs end to end, with real processes: a dashboard (`stallscope serve`), a reproduction
 * server hung in hift (its watchdog posting the stack to the dashboard) and a healthy one, and `stallscope
 * bench --report-to … --junit-xml … --ci-summary` as Buildkite runs them — a stand-in `buildkite-agent` first on
 * PATH records each annotation's arguments and Markdown — and as GitHub Actions runs them (a temp
 * $GITHUB_STEP_SUMMARY). The JUnit file (read by libxml2 against the JUnit schema), the annotation and the job
 * summary must name the phase and the fingerprint the board shows for the run, its build, node and commit, and
 * link the run page and the board; a failing agent changes neither the files nor the exit code.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StallsReply } from '#shared/stalls/stallsApi.ts';
import type { RunDetail } from '#shared/protocol/apiSchemas.ts';
import { startServer, type RunningServer } from '#test/helpers/dashboardProcess.ts';
import { startReproServer, type ReproProcess } from '#test/helpers/reproServerProcess.ts';
import { buildkiteAgentStandIn, type AgentStandIn } from '#test/helpers/buildkiteAgent.ts';
import { readJunit, type JunitSuite } from '#test/helpers/junitCheck.ts';
import { runBenchChild } from '#test/helpers/benchChild.ts';
import { stallFingerprint } from '#shared/stalls/fingerprint.ts';

const dir = mkdtempSync(join(tmpdir(), 'ci-outputs-'));
const COMMIT = (build: string) => `${build}0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9`.slice(0, 40);

let server: RunningServer;
let hung: ReproProcess;
let healthy: ReproProcess;
const okAgent: AgentStandIn = buildkiteAgentStandIn('ok');
const failingAgent: AgentStandIn = buildkiteAgentStandIn('fail');

interface Ran {
  code: number | null;
  stderr: string;
  junit: JunitSuite;
}

async function bench(
  runId: string,
  target: string,
  env: Record<string, string>,
  hang: boolean,
  reportTo: string | null = server.url,
): Promise<Ran> {
  const junitFile = join(dir, `${runId}.xml`);
  const args = ['--base-url', target, '--model', 'openbmb/MiniCPM-o-4_5', '--num-prompts', '2'];
  args.push('--max-concurrency', '2', '--random-input-len', '8', '--random-output-len', '8');
  args.push('--omni-request-timeout-s', hang ? '2' : '30', '--omni-fail-fast-on-timeout', '--probe-liveness-at-stall');
  args.push('--run-id', runId, ...(reportTo ? ['--report-to', reportTo] : []), '--disable-tqdm');
  args.push('--junit-xml', junitFile, '--ci-summary');
  const r = await runBenchChild(args, env).done;
  expect(r.code, `${runId}:\n${r.stdout}\n${r.stderr}`).toBe(hang ? 3 : 0);
  return { code: r.code, stderr: r.stderr, junit: readJunit(junitFile)[0] };
}

const buildkite = (build: string, node: string, label: string, agent: AgentStandIn) => ({
  PATH: `${agent.bin}:${process.env.PATH}`,
  BUILDKITE: 'true',
  BUILDKITE_BUILD_NUMBER: build,
  BUILDKITE_BUILD_URL: `https://buildkite.com/vllm/vllm-omni/builds/${build}`,
  BUILDKITE_JOB_ID: `job-${build}`,
  BUILDKITE_AGENT_NAME: node,
  BUILDKITE_COMMIT: COMMIT(build),
  BUILDKITE_PIPELINE_SLUG: 'vllm-omni',
  BUILDKITE_STEP_KEY: 'minicpmo-accuracy',
  BUILDKITE_LABEL: label,
});

const summaryFile = join(dir, 'github_step_summary.md');
const github = {
  GITHUB_ACTIONS: 'true',
  GITHUB_RUN_NUMBER: '812',
  GITHUB_RUN_ID: '9988776655',
  GITHUB_RUN_ATTEMPT: '1',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'vllm-project/vllm-omni',
  GITHUB_WORKFLOW: 'nightly',
  GITHUB_JOB: 'accuracy',
  GITHUB_SHA: COMMIT('812'),
  RUNNER_NAME: 'gpu-runner-7',
  GITHUB_STEP_SUMMARY: summaryFile,
};

let stall1: Ran;
let pass: Ran;
let stall2: Ran;
let gh: Ran;
let board: StallsReply;

/** The group the board files `runId` under, and the job's sentence. */
function groupOf(runId: string) {
  const g = board.groups.find((x) => x.runs.includes(runId));
  if (!g) throw new Error(`the board has no group with ${runId}: ${JSON.stringify(board.groups.map((x) => x.runs))}`);
  return g;
}

describe('CI outputs: JUnit, the Buildkite annotation and the GitHub job summary (real processes)', () => {
  beforeAll(async () => {
    server = await startServer();
    [hung, healthy] = await Promise.all([
      startReproServer(server.url, 'hift:block'),
      startReproServer(server.url, null),
    ]);
    // The hift fault hangs its worker for good: one hung server per stalled run, as in CI. The GitHub job runs
    // beside the Buildkite one (another job: neither's board filing depends on the other's).
    const githubRun = (async () => {
      const hung3 = await startReproServer(server.url, 'hift:block');
      gh = await bench('gh-812', hung3.url, github, true);
      await hung3.stop();
    })();
    stall1 = await bench('bk-101', hung.url, buildkite('101', 'node-a', ':rocm: MiniCPM-o accuracy', okAgent), true);
    pass = await bench('bk-102', healthy.url, buildkite('102', 'node-b', ':rocm: MiniCPM-o accuracy', okAgent), false);
    const hung2 = await startReproServer(server.url, 'hift:block');
    // The step's label renamed: the same step key, so the same job and test; the agent refuses to annotate.
    stall2 = await bench(
      'bk-103',
      hung2.url,
      buildkite('103', 'node-c', ':rocm: MiniCPM-o 4.5 accuracy', failingAgent),
      true,
    );
    await Promise.all([hung2.stop(), githubRun]);
    const r = await fetch(`${server.url}/api/stalls`);
    board = (await r.json()) as StallsReply;
  }, 150_000);

  afterAll(async () => {
    await Promise.all([hung?.stop(), healthy?.stop()]);
    await server?.stop();
    for (const d of [dir, okAgent.bin, failingAgent.bin]) rmSync(d, { recursive: true, force: true });
  });

  it("JUnit: a stall is <failure type=stall> naming the phase and the board's fingerprint, with build, node, commit and the run's URL", async () => {
    const g = groupOf('bk-101');
    expect(g.phase).toBe('hift');
    expect(g.frames.length).toBeGreaterThan(0); // the watchdog's stack, not the client's phase-only fingerprint
    const detail = (await (await fetch(`${server.url}/api/runs/bk-101`)).json()) as RunDetail;
    expect(detail.firstTimeout!.fingerprint.fingerprint).not.toBe(g.fingerprint);
    const { junit } = stall1;
    expect(junit).toMatchObject({ tests: '1', failures: '1', hostname: 'node-a' });
    const [c] = junit.cases;
    expect(c.classname).toBe('vllm-omni.minicpmo-accuracy');
    expect(c.name).toBe('openai-chat-omni · random');
    expect(c.failure!.type).toBe('stall');
    expect(c.failure!.message).toMatch(new RegExp(`^stalled in phase hift, fingerprint ${g.fingerprint} \\(hift/`));
    expect(junit.properties).toMatchObject({
      fingerprint: g.fingerprint,
      phase: 'hift',
      fingerprint_source: 'board',
      build: '101',
      build_url: 'https://buildkite.com/vllm/vllm-omni/builds/101',
      node: 'node-a',
      commit: COMMIT('101'),
      dashboard_run_url: `${server.url}/#/runs/bk-101`,
    });
    // The stack of the watchdog's report and the liveness sentence.
    const topFrame = detail.stallReports.find((s) => s.fingerprint?.fingerprint === g.fingerprint)!.report.stack[0];
    expect(c.systemOut).toContain(`  ${topFrame.function} (${topFrame.file}:${topFrame.line})`);
    expect(c.systemOut).toMatch(/\nliveness: The server answers health in \d+ ms/);
    expect(c.systemOut).not.toContain('WARNING');
  });

  it('JUnit: the same classname and name on every build of the job (a renamed label too); a pass has no failure', () => {
    for (const r of [pass, stall2]) {
      expect(r.junit.cases[0].classname).toBe('vllm-omni.minicpmo-accuracy');
      expect(r.junit.cases[0].name).toBe('openai-chat-omni · random');
    }
    expect(pass.junit).toMatchObject({ failures: '0', properties: { build: '102', node: 'node-b' } });
    expect(pass.junit.cases[0].failure).toBeNull();
    expect(stall2.junit.properties.fingerprint).toBe(groupOf('bk-103').fingerprint);
  });

  it("the Buildkite annotation: --style error/success, one context for the step, the stall card, the board's sentence and links", () => {
    const calls = okAgent.calls();
    expect(calls.map((c) => c.args)).toEqual([
      ['annotate', '--style', 'error', '--context', 'stallscope-minicpmo-accuracy'],
      ['annotate', '--style', 'success', '--context', 'stallscope-minicpmo-accuracy'],
    ]);
    const g = groupOf('bk-101');
    const md = calls[0].stdin;
    expect(md).toContain(`**Stall** in phase \`hift\`, fingerprint \`${g.fingerprint}\``);
    // The board's sentence as it was when the run ended, this run the job's only one then (Markdown's escapes
    // before the parentheses).
    expect(md).toContain(
      `\n> fingerprint ${g.label} seen in 1 of the last 1 run of minicpmo-accuracy \\(build 101\\) on 1 node; no passing control\n`,
    );
    expect(md).toContain(`[run on the dashboard](<${server.url}/#/runs/bk-101>)`);
    expect(md).toContain(
      `[stall board](<${server.url}/#/stalls?meta=ci_pipeline%3Dvllm-omni+ci_step%3Dminicpmo-accuracy>)`,
    );
    expect(md).toContain('[build](<https://buildkite.com/vllm/vllm-omni/builds/101>)');
    expect(md).toMatch(/\*\*Liveness:\*\* The server answers health in \d+ ms/);
    expect(md).toMatch(/Top frames of the blocked thread:\n\n```+text\n\S/);
    expect(calls[1].stdin).toMatch(/^### ✅ stallscope: passed — openai-chat-omni · random\n/);
  });

  it('a failing buildkite-agent is one warning: the JUnit file is written and the exit code stands', () => {
    expect(failingAgent.calls()).toHaveLength(1);
    expect(stall2.code).toBe(3);
    const warnings = stall2.stderr.split('\n').filter((l) => l.includes('buildkite-agent'));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^stallscope bench: warning: buildkite-agent annotate exited with 1: .*401 Unauthorized: no annotation$/,
      ),
    ]);
    expect(stall2.junit.cases[0].failure!.type).toBe('stall');
  });

  it("GitHub Actions: the same card appended to $GITHUB_STEP_SUMMARY, the run's URL built from its variables", () => {
    const g = groupOf('gh-812');
    const md = readFileSync(summaryFile, 'utf8');
    expect(md).toContain(`**Stall** in phase \`hift\`, fingerprint \`${g.fingerprint}\``);
    expect(md).toContain('[build](<https://github.com/vllm-project/vllm-omni/actions/runs/9988776655>)');
    expect(md).toContain(`[run on the dashboard](<${server.url}/#/runs/gh-812>)`);
    expect(md).toContain('**build 812 · gpu-runner-7 · accuracy**');
    expect(gh.junit.cases[0].classname).toBe('vllm-project/vllm-omni/nightly.accuracy');
    expect(gh.junit.properties).toMatchObject({ fingerprint: g.fingerprint, build: '812', node: 'gpu-runner-7' });
  });

  it("without --report-to: the bench's own fingerprint (the first timeout's, phase-only), said to be the bench's", async () => {
    const own = await bench('local-1', hung.url, {}, true, null);
    const [c] = own.junit.cases;
    expect(c.classname).toBe('stallscope.openai-chat-omni');
    const fp = stallFingerprint('unknown', []).fingerprint;
    expect(c.failure).toMatchObject({ type: 'stall' });
    expect(c.failure!.message).toMatch(new RegExp(`^stalled in phase unknown, fingerprint ${fp} \\(unknown\\)`));
    expect(own.junit.properties).toMatchObject({ fingerprint: fp, phase: 'unknown', fingerprint_source: 'bench' });
    expect(own.junit.properties.dashboard_run_url).toBeUndefined();
    // Outside Buildkite and GitHub Actions, --ci-summary writes nothing and says so once.
    expect(own.stderr.split('\n').filter((l) => l.includes('--ci-summary'))).toEqual([
      'stallscope bench: warning: --ci-summary: not on Buildkite (BUILDKITE=true) or GitHub Actions ($GITHUB_STEP_SUMMARY): no summary written',
    ]);
  });

  it('a report token may not read the board: the JUnit file and stderr say so, and name whose fingerprint it is', async () => {
    const admin = 'admin-token-for-the-ci-outputs-test';
    const guarded = await startServer(undefined, { args: ['--token', admin] });
    try {
      const made = await fetch(`${guarded.url}/api/tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'nightly', scope: 'report' }),
      });
      expect(made.status).toBe(201);
      const { token } = (await made.json()) as { token: string };
      const r = await bench('guarded-1', hung.url, {}, true, `${guarded.url}/?token=${token}`);
      const warning = r.stderr.split('\n').filter((l) => l.includes('WARNING'));
      expect(warning).toEqual([
        expect.stringMatching(
          /^stallscope bench: WARNING: the board's fingerprint for this run could not be read from http:\/\/127\.0\.0\.1:\d+ \(GET \/api\/stalls: HTTP 403 API_FORBIDDEN_SCOPE .*: reading the board needs a view \(or admin\) token: set \$STALLSCOPE_VIEW_TOKEN .*\); the fingerprint here is the bench's own \(unknown\)/,
        ),
      ]);
      expect(r.stderr).not.toContain(token);
      expect(r.junit.cases[0].systemOut.split('\n')[0]).toBe(warning[0].replace('stallscope bench: ', ''));
      expect(r.junit.properties).toMatchObject({ fingerprint_source: 'bench', phase: 'unknown' });
    } finally {
      await guarded.stop();
    }
  });
});
