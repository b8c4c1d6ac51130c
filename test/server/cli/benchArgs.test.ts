import { flatConfigOf } from '#test/helpers/benchConfig.ts';
import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';
import { StallscopeError } from '#shared/errors.ts';
import { effectiveTimeouts, LEGACY_TOTAL_TIMEOUT_S } from '#shared/config/timeouts.ts';

describe('parseBenchArgs', () => {
  it('defaults as vllm bench serve, prefix from a generated run id', () => {
    const p = parseBenchArgs(['--model', 'm']);
    expect(flatConfigOf(p.config)).toMatchObject({
      baseUrl: 'http://127.0.0.1:8000',
      endpoint: '/v1/chat/completions',
      backend: 'openai-chat-omni',
      numPrompts: 1000,
      maxConcurrency: null,
      requestRate: 'inf',
      burstiness: 1,
      seed: 0,
      numWarmups: 0,
      metricPercentiles: [99],
      failFast: false,
      timeouts: { totalS: undefined },
      save: null,
      dataset: { name: 'random', inputLen: 1024, outputLen: 128 },
    });
    expect(p.config.runId).toMatch(/^bench-[0-9a-f]{8}$/);
    expect(p.warnings).toEqual([]);
  });

  it('maps flags: host/port, metadata, headers, sampling merged under --extra-body, timeouts, thresholds, api key from env', () => {
    const p = parseBenchArgs(
      [
        '--host',
        '10.0.0.2',
        '--port',
        '9000',
        '--model',
        'm',
        '--metadata',
        'build=42',
        '--metadata',
        'node=mi300-7',
        '--header',
        'X-A=b=c',
        '--temperature',
        '0.7',
        '--top-k',
        '5',
        '--extra-body',
        '{"temperature":0.1,"modalities":["text"]}',
        '--request-rate',
        '2.5',
        '--burstiness',
        '0.5',
        '--first-byte-timeout-s',
        '30',
        '--idle-timeout-s',
        '60',
        '--omni-request-timeout-s',
        '120',
        '--omni-fail-fast-on-timeout',
        '--threshold',
        'failed==0',
        '--threshold',
        'mean_e2el_ms<=5000',
        '--append-result',
        '--run-id',
        'r1',
      ],
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(flatConfigOf(p.config)).toMatchObject({
      baseUrl: 'http://10.0.0.2:9000',
      runId: 'r1',
      apiKey: 'sk-test',
      metadata: { build: '42', node: 'mi300-7' },
      headers: { 'X-A': 'b=c' },
      extraBody: { temperature: 0.1, top_k: 5, modalities: ['text'] },
      requestRate: 2.5,
      burstiness: 0.5,
      timeouts: { totalS: 120, firstByteS: 30, idleS: 60 },
      failFast: true,
      thresholds: ['failed==0', 'mean_e2el_ms<=5000'],
      save: { dir: '.', detailed: false, append: true },
    });
  });

  it('seed-tts and trace datasets', () => {
    expect(
      parseBenchArgs([
        '--model',
        'm',
        '--dataset-name',
        'seed-tts',
        '--dataset-path',
        '/d',
        '--seed-tts-locale',
        'zh',
        '--no-oversample',
        '--hf-output-len',
        '512',
      ]).config.workload.dataset,
    ).toEqual({
      name: 'seed-tts',
      path: '/d',
      locale: 'zh',
      outputLen: 512,
      noOversample: true,
      disableShuffle: false,
      systemPrompt: undefined,
    });
    expect(
      parseBenchArgs(['--model', 'm', '--dataset-name', 'trace', '--dataset-path', '/t.jsonl']).config.workload.dataset,
    ).toEqual({ name: 'trace', path: '/t.jsonl' });
  });

  it('takes a negative number as a separate value, as argparse does (--omni-request-timeout-s -1 → legacy 6 h)', () => {
    for (const argv of [['--omni-request-timeout-s', '-1'], ['--omni-request-timeout-s=-1']]) {
      const p = parseBenchArgs(['--model', 'm', ...argv]);
      expect(p.config.limits.timeouts.totalS, argv.join(' ')).toBe(-1);
      expect(effectiveTimeouts(p.config.limits.timeouts).totalS, argv.join(' ')).toBe(LEGACY_TOTAL_TIMEOUT_S);
    }
    const p = parseBenchArgs([
      '--model',
      'm',
      '--burstiness',
      '-.5',
      '--temperature',
      '-1e-3',
      '--idle-timeout-s',
      '-0',
    ]);
    expect(p.config.dispatch.burstiness).toBe(-0.5);
    expect(p.config.workload.extraBody).toEqual({ temperature: -0.001 });
    // '-inf' is joined too, so it reaches the flag's own parsing rather than parseArgs' "ambiguous".
    expect(() => parseBenchArgs(['--model', 'm', '--request-rate', '-inf'])).toThrow(
      expect.objectContaining({ field: '--request-rate', message: expect.stringMatching(/'-inf' is not a number/) }),
    );
    expect(Object.is(p.config.limits.timeouts.idleS, -0)).toBe(true);
    // A boolean flag never swallows the next token, and a missing value before a real option is still refused.
    expect(() => parseBenchArgs(['--model', 'm', '--omni-fail-fast-on-timeout', '-1'])).toThrow(StallscopeError);
    expect(() => parseBenchArgs(['--model', '--omni'])).toThrow(
      expect.objectContaining({ field: 'argv', message: expect.stringMatching(/ambiguous/) }),
    );
  });

  it("--goodput takes its pairs as argparse's nargs='+' does, repeated or after one flag", () => {
    const p = parseBenchArgs([
      '--model',
      'm',
      '--goodput',
      'ttft:500',
      'tpot:50.5',
      '--num-prompts',
      '3',
      '--goodput=e2el:2000',
    ]);
    expect(p.config.output.goodput).toEqual({ ttft: 500, tpot: 50.5, e2el: 2000 });
    expect(p.config.workload.numPrompts).toBe(3);
    expect(p.warnings.join('\n')).not.toMatch(/goodput/);
    expect(parseBenchArgs(['--model', 'm']).config.output.goodput).toBeUndefined();
    // Values as Python's float() reads them.
    expect(
      parseBenchArgs(['--model', 'm', '--goodput', 'ttft:inf', 'e2el:1_000', 'tpot:.5']).config.output.goodput,
    ).toEqual({
      ttft: Infinity,
      e2el: 1000,
      tpot: 0.5,
    });
    // `--goodput=a` takes one value, as argparse does: a following bare value is a stray positional.
    expect(() => parseBenchArgs(['--model', 'm', '--goodput=ttft:5', 'tpot:50'])).toThrow(StallscopeError);
    // A stray positional elsewhere is still refused.
    expect(() => parseBenchArgs(['--model', 'm', 'extra'])).toThrow(StallscopeError);
  });

  it("--metadata and --header take several KEY=VALUE pairs after one flag, as argparse's nargs='*' does", () => {
    const p = parseBenchArgs([
      '--model',
      'm',
      '--metadata',
      'version=0.3.3',
      'tp=1',
      '--header',
      'x-a=1',
      'x-b=2',
      '--num-prompts',
      '3',
      '--metadata',
      'node=mi300',
    ]);
    expect(p.config.output.metadata).toEqual({ version: '0.3.3', tp: '1', node: 'mi300' });
    expect(p.config.target.headers).toEqual({ 'x-a': '1', 'x-b': '2' });
    expect(p.config.workload.numPrompts).toBe(3);
    // With no value at all (argparse stores an empty list): nothing, and the next flag still parses.
    const q = parseBenchArgs(['--model', 'm', '--metadata', '--num-prompts', '4', '--header']);
    expect(q.config.output.metadata).toEqual({});
    expect(q.config.workload.numPrompts).toBe(4);
  });

  it('ramp-up flags: strategy with both rates; rates alone are ignored with a warning, as vLLM ignores them', () => {
    const p = parseBenchArgs([
      '--model',
      'm',
      '--ramp-up-strategy',
      'exponential',
      '--ramp-up-start-rps',
      '2',
      '--ramp-up-end-rps',
      '40',
    ]);
    expect(p.config.dispatch.rampUp).toEqual({ strategy: 'exponential', startRps: 2, endRps: 40 });
    expect(p.warnings.join('\n')).not.toMatch(/ramp/);
    const q = parseBenchArgs(['--model', 'm', '--ramp-up-start-rps', '2']);
    expect(q.config.dispatch.rampUp).toBeUndefined();
    expect(q.warnings.join('\n')).toMatch(/--ramp-up-start-rps.*without --ramp-up-strategy/);
  });

  it('--stop-on, repeatable, as written; --probe-liveness-at-stall with --server-stall-after-s and no pid', () => {
    const p = parseBenchArgs(['--model', 'm', '--stop-on', 'errors>=3', '--stop-on', 'no_progress>=60s']);
    expect(p.config.limits.stopOn).toEqual(['errors>=3', 'no_progress>=60s']);
    expect(p.config.evidence.liveness).toEqual({ enabled: false });
    expect(parseBenchArgs(['--model', 'm']).config.limits.stopOn).toBeUndefined();
    const l = parseBenchArgs(['--model', 'm', '--probe-liveness-at-stall', '--server-stall-after-s', '30']);
    expect(l.config.evidence.liveness).toEqual({ enabled: true, stallAfterS: 30 });
    expect(l.config.evidence.serverStacks).toBeUndefined(); // no pid: no py-spy, the silence starts the liveness check only
    expect(parseBenchArgs(['--model', 'm', '--probe-liveness-at-stall']).config.evidence.liveness).toEqual({
      enabled: true,
    });
  });

  it('--print-stage asks for stage metrics and says the per-stage block is not printed', () => {
    const p = parseBenchArgs(['--model', 'm', '--print-stage']);
    expect(p.config.workload.printStage).toBe(true);
    expect(parseBenchArgs(['--model', 'm', '--ignore-eos']).config.workload.ignoreEos).toBe(true);
    const files = parseBenchArgs([
      '--model',
      'm',
      '--dataset-name',
      'seed-tts',
      '--dataset-path',
      '/d',
      '--seed-tts-file-ref-audio',
    ]).config.workload.dataset;
    expect(files).toMatchObject({ name: 'seed-tts', fileRefAudio: true });
    const len = (...flags: string[]) =>
      (
        parseBenchArgs(['--model', 'm', '--dataset-name', 'seed-tts', '--dataset-path', '/d', ...flags]).config.workload
          .dataset as { outputLen?: number }
      ).outputLen;
    expect(len('--output-len', '64', '--hf-output-len', '32')).toBe(64); // --output-len first, as vLLM-Omni
    expect(len('--hf-output-len', '32')).toBe(32);
    expect(len()).toBeUndefined();
    expect(parseBenchArgs(['--model', 'm', '--probe-request-rate', '0.5']).warnings.join('\n')).toMatch(
      /--probe-request-rate is accepted for compatibility and ignored: no probe requests/,
    );
    expect(p.warnings).toEqual([
      'warning: --print-stage: stage metrics are requested and kept per request, but the per-stage block is not printed',
    ]);
  });

  it.each([
    [['--model', 'm', '--ramp-up-strategy', 'linear', '--ramp-up-start-rps', '1'], '--ramp-up-end-rps'],
    [
      ['--model', 'm', '--ramp-up-strategy', 'steps', '--ramp-up-start-rps', '1', '--ramp-up-end-rps', '2'],
      '--ramp-up-strategy',
    ],
    [
      ['--model', 'm', '--ramp-up-strategy', 'linear', '--ramp-up-start-rps', '1.5', '--ramp-up-end-rps', '2'],
      '--ramp-up-start-rps',
    ],
    [['--model', 'm', '--goodput', 'ttft=500'], '--goodput'],
    [['--model', 'm', '--goodput', 'ttft:fast'], '--goodput'],
    [['--model', 'm', '--goodput', 'ttft:0x10'], '--goodput'],
    [['--model', 'm', '--goodput', 'ttft:'], '--goodput'],
    [['--model', 'm', '--num-prompts', 'ten'], '--num-prompts'],
    [['--model', 'm', '--max-concurrency', '1.5'], '--max-concurrency'],
    [['--model', 'm', '--metadata', 'novalue'], '--metadata'],
    [['--model', 'm', '--dataset-name', 'sharegpt'], '--dataset-name'],
    [['--num-prompts', '3'], '--model'],
  ])('refuses %j naming %s', (argv, flag) => {
    try {
      parseBenchArgs(argv);
      throw new Error('expected a refusal');
    } catch (e) {
      expect(e).toBeInstanceOf(StallscopeError);
      expect((e as StallscopeError).field).toBe(flag);
      expect((e as StallscopeError).exitCode).toBe(2);
    }
  });
});

describe('newer vLLM-Omni datasets', () => {
  it.each(['seed-tts-text', 'omniinteract', 'omni-duplex-eval'])('refuses %s by name, saying what it is', (name) => {
    try {
      parseBenchArgs(['--model', 'm', '--dataset-name', name]);
      throw new Error('expected a refusal');
    } catch (e) {
      expect(e).toBeInstanceOf(StallscopeError);
      expect((e as StallscopeError).field).toBe('--dataset-name');
      expect((e as StallscopeError).message).toContain(`'${name}' is vLLM-Omni's`);
    }
  });
});

describe('stallscope bench --help', () => {
  it('prints the usage and exits 0 without other flags', async () => {
    const { run } = await import('#server/cli/bench.ts');
    const lines: string[] = [];
    const log = console.log;
    console.log = (...a: unknown[]) => void lines.push(a.join(' '));
    try {
      expect(await run(['--help'])).toBe(0);
    } finally {
      console.log = log;
    }
    expect(lines.join('\n')).toMatch(/--omni-fail-fast-on-timeout/);
    expect(lines.join('\n')).toMatch(
      /exit codes: 0 passed, 1 failed, 2 usage\/config error, 3 failed_closed, 4 interrupted, 5 errored/,
    );
  });
});

describe('parseBenchArgs: where the run ran (docs/design.md#ci-metadata)', () => {
  const BUILDKITE = {
    BUILDKITE: 'true',
    BUILDKITE_BUILD_NUMBER: '14607',
    BUILDKITE_AGENT_NAME: 'node-b',
    BUILDKITE_PIPELINE_SLUG: 'vllm-omni',
    BUILDKITE_LABEL: 'minicpmo-accuracy',
  };

  it('records the CI variables as ci_* metadata without any flag', () => {
    expect(parseBenchArgs(['--model', 'm'], BUILDKITE).config.output.metadata).toEqual({
      ci_provider: 'buildkite',
      ci_build: '14607',
      ci_node: 'node-b',
      ci_pipeline: 'vllm-omni',
      ci_step: 'minicpmo-accuracy',
      ci_step_label: 'minicpmo-accuracy',
    });
  });

  it('--metadata KEY=VALUE overrides a detected key and adds others', () => {
    const p = parseBenchArgs(['--model', 'm', '--metadata', 'ci_node=gpu-7', 'gpu=MI300X'], BUILDKITE);
    expect(p.config.output.metadata).toMatchObject({ ci_build: '14607', ci_node: 'gpu-7', gpu: 'MI300X' });
  });

  it('--no-ci-metadata reads nothing from the CI, keeping what --metadata says', () => {
    const p = parseBenchArgs(['--model', 'm', '--no-ci-metadata', '--metadata', 'ci_build=1'], BUILDKITE);
    expect(p.config.output.metadata).toEqual({ ci_build: '1' });
  });

  it('outside a CI there is nothing to record', () => {
    expect(parseBenchArgs(['--model', 'm'], { HOME: '/root' }).config.output.metadata).toEqual({});
  });
});

describe('parseBenchArgs: the CI outputs (docs/design.md#ci-outputs)', () => {
  it("--junit-xml FILE and --ci-summary are the CLI's, not run options; an empty file name is refused", () => {
    expect(parseBenchArgs(['--model', 'm']).ciOutput).toEqual({ junitXml: null, summary: false });
    const p = parseBenchArgs(['--model', 'm', '--junit-xml', 'out/stallscope.xml', '--ci-summary']);
    expect(p.ciOutput).toEqual({ junitXml: 'out/stallscope.xml', summary: true });
    expect(JSON.stringify(p.config)).not.toContain('stallscope.xml');
    expect(() => parseBenchArgs(['--model', 'm', '--junit-xml', ' '])).toThrow(
      expect.objectContaining({
        field: '--junit-xml',
        message: 'invalid configuration: --junit-xml needs a file name',
      }),
    );
  });
});
