import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startSseServer, type TestServer } from '#test/helpers/sseServer.ts';
import { REPO, runBenchChild } from '#test/helpers/benchChild.ts';
import { barePython } from '#test/helpers/tools.ts';
import { run } from '#server/cli/bench.ts';

const seedRoot = join(REPO, 'test/fixtures/datasets/seed-tts');
let server: TestServer | null = null;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stallscope-cli-'));
});
afterEach(async () => {
  await server?.close();
  server = null;
  rmSync(dir, { recursive: true, force: true });
});

const idx = (id: string): number => Number(id.split('-').pop());

/** The CI command line of docs/design.md#vllm-compatibility, verbatim (split as a shell would). */
const CI_LINE = [
  '--omni',
  '--backend',
  'openai-chat-omni',
  '--endpoint',
  '/v1/chat/completions',
  '--model',
  'openbmb/MiniCPM-o-4_5',
  '--dataset-name',
  'seed-tts',
  '--seed-tts-locale',
  'en',
  '--num-prompts',
  '2000',
  '--max-concurrency',
  '10',
  '--request-rate',
  'inf',
  '--num-warmups',
  '0',
  '--no-oversample',
  '--percentile-metrics',
  'ttft,tpot,itl,e2el,audio_ttfp,audio_rtf',
  '--save-result',
  '--extra-body',
  '{"modalities":["text","audio"]}',
];

describe('stallscope bench (child process)', () => {
  it('runs the CI command line unchanged against a loopback server and passes', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 3, audioChunks: 1 }));
    const r = await runBenchChild([
      ...CI_LINE,
      '--base-url',
      server.url,
      '--dataset-path',
      seedRoot,
      '--result-dir',
      dir,
    ]).done;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('============ Serving Benchmark Result ============');
    expect(r.stdout).toMatch(/Successful requests:\s+4/);
    expect(r.stdout).toContain('Per-request timeout: 900s');
    expect(server.arrivals).toHaveLength(4); // the fixture has 4 usable rows; --no-oversample sends just those
    expect(server.arrivals[0].body.modalities).toEqual(['text', 'audio']);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^openai-chat-omni-infqps-concurrency10-MiniCPM-o-4_5-\d{8}-\d{6}\.json$/);
    expect(JSON.parse(readFileSync(join(dir, files[0]), 'utf8')).verdict).toBe('passed');
  });

  it('accepts known vllm flags it does not act on, with one warning line each', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }));
    const r = await runBenchChild([
      ...CI_LINE,
      '--base-url',
      server.url,
      '--dataset-path',
      seedRoot,
      '--result-dir',
      dir,
      '--num-prompts',
      '2',
      '--tokenizer',
      'openbmb/MiniCPM-o-4_5',
      '--trust-remote-code',
      '--result-filename',
      'acc.json',
    ]).done;
    expect(r.code).toBe(0);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^warning: --tokenizer is accepted for compatibility and ignored: /);
    expect(readdirSync(dir)).toEqual(['acc.json']);
  });

  it('the CI accuracy line without --asr-url, its Python lacking transformers: exit 2 naming it in one line, nothing sent', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }));
    const r = await runBenchChild([
      ...CI_LINE,
      '--base-url',
      server.url,
      '--dataset-path',
      seedRoot,
      '--result-dir',
      dir,
      '--num-prompts',
      '2',
      '--seed-tts-wer-eval',
      '--asr-python',
      barePython(dir),
    ]).done;
    expect(r.code).toBe(2);
    const [first, second] = r.stderr.trim().split('\n');
    expect(first).toMatch(
      /^stallscope bench: the transcription Python cannot run the recogniser: missing Python packages in .*: torch \(ModuleNotFoundError: No module named 'torch'\); transformers \(ModuleNotFoundError: No module named 'transformers'\); numpy .*; install them into that Python, pass --asr-python .* or --asr-url naming a running transcription server$/,
    );
    expect(second).toBe(`Run 'stallscope bench --help' for the options.`);
    expect(server.arrivals).toHaveLength(0);
    expect(readdirSync(dir)).toEqual(['python-without-packages']);
  });

  it('refuses invalid or contradictory flags with exit 2, naming the flag, before sending anything', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }));
    const base = [
      '--base-url',
      server.url,
      '--model',
      'm',
      '--dataset-name',
      'seed-tts',
      '--dataset-path',
      seedRoot,
      '--num-prompts',
      '2',
    ];
    const cases: [string[], RegExp][] = [
      [['--max-concurrency', '0'], /max-concurrency/],
      [['--request-rate', '0'], /request-rate/],
      [['--burstiness', '-1'], /burstiness must be > 0 \(got -1\) \(--burstiness\)/],
      [['--num-prompts', '0'], /num-prompts/],
      [
        ['--omni-fail-fast-on-timeout', '--omni-request-timeout-s', '0'],
        /fail-fast needs an effective timeout.*--omni-request-timeout-s/,
      ],
      // A separate negative value (argparse-style) reaches the same check: -1 is the legacy 6 h, no bound for the breaker.
      [
        ['--omni-fail-fast-on-timeout', '--omni-request-timeout-s', '-1'],
        /fail-fast needs an effective timeout.*legacy 6 h/,
      ],
      [['--extra-body', '{"modalities":'], /--extra-body/],
      [['--backend', 'openai-completions'], /unsupported backend/],
      [['--self-timed'], /self-timed/],
      [['--dataset-path', '/nonexistent'], /dataset cannot be read.*\/nonexistent/],
      [['--no-such-flag'], /no-such-flag/],
      // The server-stacks probe's own checks, made by the CLI before it hands the probe to the engine.
      [['--server-pid', String(2 ** 22 - 7), '--capture-server-stacks'], /--server-pid 4194297: no such process/],
      [['--server-pid', String(process.pid), '--server-stall-after-s', '0'], /--server-stall-after-s must be > 0/],
      [
        ['--server-pid', 'auto', '--capture-server-stacks', '--base-url', 'http://10.1.2.3:8000'],
        /--server-pid auto needs a loopback base URL/,
      ],
      // Stop rules (docs/design.md#stop-rules): refused by the engine's rule, naming the flag.
      [
        ['--stop-on', 'errors>=0'],
        /stop rule 'errors>=0': the count must be a whole number ≥ 1 \(got 0\) \(--stop-on\)/,
      ],
      [['--stop-on', 'p95_ttft_ms>100'], /stop rule 'p95_ttft_ms>100': unknown metric 'p95_ttft_ms'.*\(--stop-on\)/],
      [
        ['--stop-on', 'error_rate>0.2,window=50'],
        /stop rule 'error_rate>0.2,window=50': the window 50 is more than the run's 2 requests.*\(--stop-on\)/,
      ],
      [
        ['--stop-on', 'timeouts>=1', '--omni-request-timeout-s', '0'],
        /a timeouts stop rule needs an effective timeout/,
      ],
      [
        ['--server-stall-after-s', '5'],
        /--server-stall-after-s needs --server-pid PID\|auto \(or --probe-liveness-at-stall\)/,
      ],
      [['--probe-liveness-at-stall', '--server-stall-after-s', '0'], /--server-stall-after-s must be > 0 seconds/],
      // The engine's refusals come first, as when the engine checked the probe's settings itself.
      [['--server-pid', String(2 ** 22 - 7), '--max-concurrency', '0'], /^(?!.*no such process).*max-concurrency/s],
    ];
    // In process (the same run() the binary calls) to keep the suite fast; one case also as a real child below.
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (const [extra, message] of cases) {
        errors.mockClear();
        expect(await run([...base, ...extra]), extra.join(' ')).toBe(2);
        expect(errors.mock.calls.map((c) => c.join(' ')).join('\n'), extra.join(' ')).toMatch(message);
      }
    } finally {
      errors.mockRestore();
    }
    const child = await runBenchChild([...base, '--max-concurrency', '0']).done;
    expect(child.code).toBe(2);
    expect(child.stderr).toMatch(/max-concurrency must be an integer ≥ 1 \(got 0\)/);
    expect(server.arrivals).toHaveLength(0);
  });

  // A capture that cannot work is refused with the flags, before the engine loads, a warm-up or a ready check runs:
  // a check moved to the probe's start would answer seconds later, after requests had reached the target.
  it('refuses --capture-server-stacks without --server-pid at once, with nothing sent', async () => {
    server = await startSseServer(() => ({ kind: 'ok' }));
    const t0 = performance.now();
    const r = await runBenchChild([
      '--base-url',
      server.url,
      '--model',
      'm',
      '--num-prompts',
      '2',
      '--num-warmups',
      '1',
      '--ready-check-timeout-sec',
      '5',
      '--capture-server-stacks',
    ]).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--capture-server-stacks needs --server-pid PID\|auto/);
    expect(server.arrivals).toHaveLength(0);
    // Node's own start-up is most of it; generous for a loaded machine, far below a warm-up or a ready check.
    expect(r.exitedAtMs - t0).toBeLessThan(3000);
  });

  it('fail-fast at 1 req/s × 300: exit 3 soon after the first hang, and the process exits on its own', async () => {
    server = await startSseServer(() => ({ kind: 'hang' }));
    const r = await runBenchChild([
      '--base-url',
      server.url,
      '--model',
      'm',
      '--dataset-name',
      'random',
      '--random-input-len',
      '4',
      '--random-output-len',
      '4',
      '--num-prompts',
      '300',
      '--request-rate',
      '1',
      '--omni-request-timeout-s',
      '0.3',
      '--omni-fail-fast-on-timeout',
      '--save-result',
      '--result-dir',
      dir,
    ]).done;
    expect(r.code).toBe(3);
    expect(r.signal).toBeNull();
    // Finishing, writing the result and exiting all happen within the timeout + 1 s of the first hang (+ slack for process teardown).
    expect(r.exitedAtMs - server.arrivals[0].atMs).toBeLessThan(300 + 1000 + 700);
    const saved = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]), 'utf8'));
    expect(saved.verdict).toBe('failed_closed');
    expect(saved.not_dispatched_requests).toBe(300 - server.arrivals.length);
    expect(r.stdout).toMatch(/failed_closed/);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: aborts in flight, writes the partial result with verdict interrupted, exit 4',
    async (sig) => {
      server = await startSseServer((a) => (idx(a.requestId) === 0 ? { kind: 'ok' } : { kind: 'hang-after-headers' }));
      const run = runBenchChild([
        '--base-url',
        server.url,
        '--model',
        'm',
        '--dataset-name',
        'random',
        '--random-input-len',
        '4',
        '--random-output-len',
        '4',
        '--num-prompts',
        '6',
        '--max-concurrency',
        '2',
        '--save-result',
        '--save-detailed',
        '--result-dir',
        dir,
        '--result-filename',
        'partial.json',
      ]);
      await server.waitForArrivals(3);
      run.child.kill(sig);
      const r = await run.done;
      expect(r.code).toBe(4);
      const saved = JSON.parse(readFileSync(join(dir, 'partial.json'), 'utf8'));
      expect(saved.verdict).toBe('interrupted');
      expect(saved.statuses[0]).toBe('completed');
      expect(saved.generated_texts[0]).not.toBe('');
      expect(saved.not_dispatched_requests).toBe(3);
      expect(server.openSockets).toBe(0);
    },
  );

  it('a second signal exits at once, not after the bounded wind-down (here a dashboard that never answers)', async () => {
    server = await startSseServer(() => ({ kind: 'hang-after-headers' }));
    // --report-to a server that accepts and never answers: after the first signal the bench waits
    // up to 5 s for its reporter (server/engine/report/remote.ts), the window a second signal cuts.
    const sockets = new Set<Socket>();
    const silent = createServer(() => undefined);
    silent.on('connection', (c: Socket) => sockets.add(c));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const run = runBenchChild([
        '--base-url',
        server.url,
        '--model',
        'm',
        '--dataset-name',
        'random',
        '--random-input-len',
        '4',
        '--random-output-len',
        '4',
        '--num-prompts',
        '6',
        '--max-concurrency',
        '2',
        '--report-to',
        `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      ]);
      await server.waitForArrivals(2);
      run.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 400));
      expect(run.child.exitCode).toBeNull(); // still winding down: waiting for the reporter
      const secondAt = performance.now();
      run.child.kill('SIGINT');
      const r = await run.done;
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/SIGINT again: exiting without waiting/);
      expect(r.exitedAtMs - secondAt).toBeLessThan(1000); // not the reporter's 5 s
    } finally {
      for (const c of sockets) c.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('a signal after a run that ended by itself only stops waiting for the dashboard: the run keeps its exit code', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }));
    const sockets = new Set<Socket>();
    const silent = createServer(() => undefined);
    silent.on('connection', (c: Socket) => sockets.add(c));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const run = runBenchChild([
        '--base-url',
        server.url,
        '--model',
        'm',
        '--dataset-name',
        'random',
        '--random-input-len',
        '4',
        '--random-output-len',
        '4',
        '--num-prompts',
        '3',
        '--report-to',
        `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      ]);
      await server.waitForArrivals(3);
      await new Promise((r) => setTimeout(r, 400)); // the run is over; the bench waits for its reporter
      expect(run.child.exitCode).toBeNull();
      const signalAt = performance.now();
      run.child.kill('SIGINT');
      const r = await run.done;
      expect(r.code).toBe(0); // passed, as the run ended by itself
      expect(r.stderr).toMatch(/SIGINT: not waiting for the dashboard any longer/);
      expect(r.stderr).not.toMatch(/aborting the requests in flight/);
      expect(r.stdout).toMatch(/passed/);
      expect(r.exitedAtMs - signalAt).toBeLessThan(1000); // not the reporter's 5 s
    } finally {
      for (const c of sockets) c.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('records where it ran from the CI environment; --metadata overrides a key, --no-ci-metadata reads none', async () => {
    server = await startSseServer(() => ({ kind: 'ok', tokens: 2 }), {
      getRoutes: { '/v1/models': { data: [{ id: 'openbmb/MiniCPM-o-4_5' }] } },
    });
    const BUILDKITE = {
      BUILDKITE: 'true',
      BUILDKITE_BUILD_NUMBER: '14607',
      BUILDKITE_AGENT_NAME: 'node-b',
      BUILDKITE_COMMIT: 'a1b2c3d',
      BUILDKITE_PIPELINE_SLUG: 'vllm-omni',
      BUILDKITE_LABEL: 'minicpmo-accuracy',
    };
    const result = async (name: string, extra: string[]) => {
      const base = ['--base-url', server!.url, '--model', 'm', '--num-prompts', '1', '--random-input-len', '4'];
      const r = await runBenchChild([...base, '--result-dir', dir, '--result-filename', name, ...extra], BUILDKITE)
        .done;
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;
    };
    const detected = await result('ci.json', ['--metadata', 'ci_node=gpu-7', 'gpu=MI300X']);
    expect(detected).toMatchObject({
      ci_provider: 'buildkite',
      ci_build: '14607',
      ci_node: 'gpu-7',
      ci_commit: 'a1b2c3d',
      ci_pipeline: 'vllm-omni',
      ci_step: 'minicpmo-accuracy',
      gpu: 'MI300X',
    });
    // The server's identity is in the same file: its model list, and why there is no version.
    expect(detected.server_identity).toEqual({
      models: ['openbmb/MiniCPM-o-4_5'],
      version: null,
      notes: ['/version: HTTP 404'],
    });
    const off = await result('off.json', ['--no-ci-metadata', '--metadata', 'gpu=MI300X']);
    expect(Object.keys(off).filter((k) => k.startsWith('ci_'))).toEqual([]);
    expect(off.gpu).toBe('MI300X');
  });

  it('an unreachable target with a ready check: exit 5 (errored)', async () => {
    const r = await runBenchChild([
      '--base-url',
      'http://127.0.0.1:9',
      '--model',
      'm',
      '--num-prompts',
      '2',
      '--ready-check-timeout-sec',
      '0.3',
    ]).done;
    expect(r.code).toBe(5);
    expect(r.stdout).toMatch(/not ready/);
  });

  it('exit 1 when a request fails (HTTP 500) or a threshold does not hold', async () => {
    server = await startSseServer((a) => (idx(a.requestId) === 1 ? { kind: 'status', status: 500 } : { kind: 'ok' }));
    const out = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const base = [
        '--base-url',
        server.url,
        '--model',
        'm',
        '--num-prompts',
        '3',
        '--random-input-len',
        '4',
        '--run-id',
        'x',
      ];
      expect(await run(base)).toBe(1);
      await server.close();
      server = await startSseServer(() => ({ kind: 'ok' }));
      expect(
        await run([
          '--base-url',
          server.url,
          '--model',
          'm',
          '--num-prompts',
          '2',
          '--random-input-len',
          '4',
          '--threshold',
          'mean_e2el_ms<=0.000001',
        ]),
      ).toBe(1);
      expect(
        await run([
          '--base-url',
          server.url,
          '--model',
          'm',
          '--num-prompts',
          '2',
          '--random-input-len',
          '4',
          '--threshold',
          'completed==2',
        ]),
      ).toBe(0);
    } finally {
      out.mockRestore();
    }
  });
});
