/**
 * The default phase rules (server/engine/probes/serverStacks/defaultPhaseRules.json), one
 * test per rule, on frames named as vLLM-Omni's MiniCPM-o 4.5 Code2Wav and
 * torch name them (upstream `vllm_omni/model_executor/models/minicpmo_4_5/`), under the
 * `decode_batch` caller they really have; and how a capture's thread is chosen.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inferPhase, threadPhase, type PhaseRulesFile } from '#shared/stalls/phaseRules.ts';
import type { ServerProcess, StackFrame } from '#shared/stalls/stallReport.ts';
import { DEFAULT_RULES_FILE, loadPhaseRules } from '#server/engine/probes/serverStacks/rules.ts';

const rules = loadPhaseRules();
const T2W = '/opt/vllm-omni/vllm_omni/model_executor/models/minicpmo_4_5/batched_token2wav.py';
const py = (fn: string, file: string, line = 1): StackFrame => ({
  function: fn,
  file,
  line,
  column: 0,
  language: 'python',
});
const caller = [
  py('decode_batch', T2W, 412),
  py('execute_model', '/opt/vllm-omni/vllm_omni/worker/gpu_model_runner.py'),
];
const wait = py('wait', '/usr/lib/python3.11/threading.py', 327);

/** [rule id, frames top first (without the caller), expected phase, index of the matching frame]. */
const CASES: [string, StackFrame[], string, number][] = [
  ['hift-istft', [wait, py('istft', '/usr/lib/python3/site-packages/torch/functional.py', 641)], 'hift', 1],
  ['hift-function', [py('_run_hift_graph', '/opt/vllm-omni/vllm_omni/.../minicpmo_4_5_token2wav.py')], 'hift', 0],
  ['hift-file', [wait, py('decode', '/opt/stepaudio2/flow/hift.py', 88)], 'hift', 1],
  ['cfm-estimator', [py('blocks_forward_chunk', '/opt/stepaudio2/flow/decoder_dit.py', 200)], 'cfm', 0],
  [
    'cfm-euler',
    [py('forward', '/torch/nn/modules/linear.py'), py('solve_euler', '/opt/stepaudio2/flow/flow_matching.py')],
    'cfm',
    1,
  ],
  ['encoder-forward-chunk', [py('forward_chunk', '/opt/stepaudio2/flow/upsample_encoder.py', 310)], 'encoder', 0],
  ['cache-prune', [py('_prune_attention_cache', T2W, 530)], 'cache_materialization', 0],
  ['setup-batch', [py('setup_batch', T2W, 250)], 'setup', 0],
  ['setup-prompt-models', [py('forward', '/opt/s3tokenizer/model_v2.py', 90)], 'setup', 0],
  ['output-copy-b64', [py('b64encode', '/usr/lib/python3.11/base64.py', 58)], 'output_copy', 0],
];

describe('default phase rules (one test per rule)', () => {
  const file = JSON.parse(readFileSync(DEFAULT_RULES_FILE, 'utf8')) as PhaseRulesFile;

  it('every default rule has its test below', () => {
    expect(file.rules.map((r) => r.id).sort()).toEqual(CASES.map((c) => c[0]).sort());
  });

  for (const [id, top, phase, index] of CASES) {
    it(`${id} → ${phase}`, () => {
      const m = threadPhase([...top, ...caller], rules);
      expect(m?.rule.id).toBe(id);
      expect(m?.rule.phase).toBe(phase);
      expect(m?.frameIndex).toBe(index);
    });
  }

  it('decode_batch alone is no phase, and the estimator is not the encoder', () => {
    expect(threadPhase(caller, rules)).toBeNull();
    expect(threadPhase([py('forward_chunk', '/opt/stepaudio2/flow/decoder_dit.py')], rules)).toBeNull();
    expect(threadPhase([py('_shift_left', '/x/util.py')], rules)).toBeNull();
  });
});

describe('inferPhase', () => {
  const thread = (name: string, tid: number, frames: StackFrame[], active = false) => ({
    name,
    tid,
    active,
    ownsGil: false,
    frames,
  });
  it('prefers the Code2Wav stage thread over another match, and names the frame it came from', () => {
    const api: ServerProcess = {
      pid: 10,
      ppid: null,
      cmdline: 'vllm serve',
      threads: [thread('api', 10, [py('b64encode', '/usr/lib/python3.11/base64.py')], true)],
    };
    const stage: ServerProcess = {
      pid: 11,
      ppid: 10,
      cmdline: 'stage 2',
      threads: [thread('MainThread', 11, [wait, py('decode', '/opt/stepaudio2/flow/hift.py', 88), ...caller])],
    };
    const inf = inferPhase([api, stage], rules);
    expect(inf).toMatchObject({ phase: 'hift', rule: 'hift-file', pid: 11, tid: 11, frameIndex: 1 });
    expect(inf?.frame.function).toBe('decode');
    expect(inferPhase([api], rules)?.phase).toBe('output_copy');
    expect(inferPhase([{ ...api, threads: [thread('x', 1, [wait])] }], rules)).toBeNull();
  });
});
