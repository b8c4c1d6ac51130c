/**
 * The same hang gets the same fingerprint whatever varies between builds and
 * nodes (line numbers, addresses, paths, thread names, idle frames, frames
 * below the cut); a different blocked function or phase gets another.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FINGERPRINT_FRAMES, stallFingerprint, type FrameLike } from '#shared/stalls/fingerprint.ts';

interface Frame extends FrameLike {
  line: number;
  column: number;
}

/** vLLM-Omni's Code2Wav hang in hift as py-spy shows it on one node. */
const HANG: Frame[] = [
  {
    function: '_synchronize',
    file: '/opt/venv/lib/python3.12/site-packages/torch/cuda/__init__.py',
    line: 1040,
    column: 0,
  },
  {
    function: 'inference',
    file: '/opt/venv/lib/python3.12/site-packages/vllm_omni/model_executor/models/minicpmo/hift.py',
    line: 312,
    column: 0,
  },
  {
    function: 'decode_batch',
    file: '/opt/venv/lib/python3.12/site-packages/vllm_omni/batched_token2wav.py',
    line: 88,
    column: 0,
  },
  {
    function: 'execute_model',
    file: '/opt/venv/lib/python3.12/site-packages/vllm_omni/worker.py',
    line: 501,
    column: 0,
  },
];

const ident = fc
  .stringMatching(/^[a-z_][a-z0-9_]{2,15}$/)
  .filter(
    (s) =>
      !['wait', 'run', 'main', 'select', 'poll', 'sleep', 'worker', 'recv', 'accept', 'syscall', 'clone'].includes(s),
  );
const prefix = fc.constantFrom(
  '/opt/venv/lib/python3.12/site-packages',
  '/usr/local/lib/python3.10/dist-packages',
  '/home/ci/.venv/lib/python3.11/site-packages',
  'file:///srv/app',
);

/** The same frames as another build on another node would show them. */
const variant = fc.record({
  lines: fc.array(fc.nat(5000), { minLength: HANG.length, maxLength: HANG.length }),
  prefix,
  idleOnTop: fc.array(
    fc.constantFrom<FrameLike>(
      { function: 'wait', file: '/usr/lib/python3.12/threading.py' },
      { function: '_wait_for_tstate_lock', file: '/usr/lib/python3.12/threading.py' },
      { function: 'pthread_cond_wait', file: '/lib/x86_64-linux-gnu/libc.so.6' },
    ),
    { maxLength: 2 },
  ),
  address: fc.nat(0xffffff).map((n) => `0x${n.toString(16)}`),
  below: fc.array(fc.record({ function: ident, file: ident.map((s) => `/x/${s}.py`) }), { maxLength: 4 }),
});

function asSeen(v: {
  lines: number[];
  prefix: string;
  idleOnTop: FrameLike[];
  address: string;
  below: FrameLike[];
}): FrameLike[] {
  const frames = HANG.map((f, i) => ({
    ...f,
    function: i === 3 ? `${f.function} ${v.address}` : f.function,
    file: f.file.replace('/opt/venv/lib/python3.12/site-packages', v.prefix) + (i === 0 ? `:${v.lines[0]}` : ''),
    line: v.lines[i],
  }));
  // Frames below the cut (the callers of the kept ones) differ from node to node.
  return [...v.idleOnTop, ...frames.slice(0, FINGERPRINT_FRAMES), ...v.below, ...frames.slice(FINGERPRINT_FRAMES)];
}

describe('stallFingerprint', () => {
  const base = stallFingerprint('hift', HANG);

  it('names the hang as people do and keeps function and file name only', () => {
    expect(base.label).toBe('hift/_synchronize');
    expect(base.frames).toEqual([
      '_synchronize (__init__.py)',
      'inference (hift.py)',
      'decode_batch (batched_token2wav.py)',
    ]);
    expect(base.fingerprint).toMatch(/^[0-9a-f]{12}$/);
  });

  it('line numbers, addresses, install paths, idle frames on top and frames below the cut do not change it', () => {
    fc.assert(
      fc.property(variant, (v) => {
        expect(stallFingerprint('hift', asSeen(v)).fingerprint).toBe(base.fingerprint);
      }),
      { numRuns: 300, seed: 14607 },
    );
  });

  it('a different blocked function, a different order of the kept frames or another phase changes it', () => {
    fc.assert(
      fc.property(
        ident.filter((s) => s !== '_synchronize'),
        (fn) => {
          const other = [{ ...HANG[0], function: fn }, ...HANG.slice(1)];
          expect(stallFingerprint('hift', other).fingerprint).not.toBe(base.fingerprint);
        },
      ),
      { numRuns: 200, seed: 14598 },
    );
    expect(stallFingerprint('hift', [HANG[1], HANG[0], HANG[2]]).fingerprint).not.toBe(base.fingerprint);
    expect(stallFingerprint('cfm', HANG).fingerprint).not.toBe(base.fingerprint);
  });

  it('no stack (a timeout seen from the client) is a phase-only fingerprint, distinct per phase', () => {
    const a = stallFingerprint('hift', []);
    expect(a).toMatchObject({ phase: 'hift', frames: [], label: 'hift' });
    expect(stallFingerprint('hift', [{ function: 'wait', file: 'threading.py' }]).fingerprint).toBe(a.fingerprint);
    expect(stallFingerprint('cfm', []).fingerprint).not.toBe(a.fingerprint);
    expect(stallFingerprint('', []).phase).toBe('unknown');
  });

  it('a JavaScript watchdog stack: node internals are runtime frames, the .ts file names stay', () => {
    const js = [
      { function: 'blockOnDeviceSync', file: '/work/main/server/repro/code2wav/worker/hang.ts' },
      { function: 'runHift', file: '/work/main/server/repro/code2wav/kernels/hift.ts' },
      { function: 'processTicksAndRejections', file: 'node:internal/process/task_queues' },
    ];
    const f = stallFingerprint('hift', js);
    expect(f.frames).toEqual(['blockOnDeviceSync (hang.ts)', 'runHift (hift.ts)']);
    const moved = js.map((x) => ({ ...x, file: x.file.replace('/work/main', '/home/ci/stallscope') }));
    expect(stallFingerprint('hift', moved).fingerprint).toBe(f.fingerprint);
  });
});

describe('the hashed encoding is unambiguous', () => {
  // Joined with newlines (encoding 1), a function name or a phase holding one passed for two fields.
  it('a frame whose function holds a newline is not two frames', () => {
    const one = stallFingerprint('hift', [{ function: 'f (a.py)\ng', file: 'b.py' }]);
    const two = stallFingerprint('hift', [
      { function: 'f', file: 'a.py' },
      { function: 'g', file: 'b.py' },
    ]);
    expect(one.fingerprint).not.toBe(two.fingerprint);
  });

  it('a phase holding a newline is not a phase and a frame', () => {
    const a = stallFingerprint('hift\nf (a.py)', [{ function: 'g', file: 'b.py' }]);
    const b = stallFingerprint('hift', [
      { function: 'f', file: 'a.py' },
      { function: 'g', file: 'b.py' },
    ]);
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });

  it('equal fields hash alike, different fields differently, whatever characters they hold (property)', () => {
    const field = fc.string({ unit: fc.constantFrom('a', '\n', ' ', '(', ')', '"', ',', '['), maxLength: 6 });
    const frame = fc.record({ function: field.map((s) => `x${s}x`), file: field.map((s) => `y${s}y.py`) });
    fc.assert(
      fc.property(
        field,
        fc.array(frame, { maxLength: 3 }),
        field,
        fc.array(frame, { maxLength: 3 }),
        (p1, s1, p2, s2) => {
          const a = stallFingerprint(`p${p1}p`, s1);
          const b = stallFingerprint(`p${p2}p`, s2);
          const same = p1 === p2 && JSON.stringify(s1) === JSON.stringify(s2);
          // Equal fields, equal fingerprints; different fields: different (53 bits: a chance collision is ~2^-53).
          expect(a.fingerprint === b.fingerprint).toBe(same);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
