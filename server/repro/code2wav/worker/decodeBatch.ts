/**
 * One Code2Wav operation: a batch of windows decoded phase by phase
 * (setup → encoder → cfm → cache_materialization → hift → output_copy).
 * Every phase publishes itself to the watchdog's progress record before it
 * works, so a hang inside a phase is attributed to that phase. A row whose
 * client went away is dropped at the next phase or Euler step.
 */
import { encodeCodes } from '../kernels/encoder.ts';
import { cfmStep, cosineSchedule, startNoise, type CfmRow } from '../kernels/cfm.ts';
import { synthesize } from '../kernels/hift.ts';
import { HOP, MEL_BINS, MEL_PER_CODE, SAMPLE_RATE, type Code2WavModel } from '../kernels/model.ts';
import { floatToPcm16, wavBytes } from '../kernels/wav.ts';
import type { ProgressWriter } from '../../watchdog/progress.ts';
import type { PhaseDetails } from '../../../../shared/types.ts';
import { blockOnDeviceSync, spinInKernel, waitOnSlowDevice } from './hang.ts';
import type { DecodeItem, DecodeOutput, DecodeSettings, FaultOrder } from './messages.ts';
import { cachePlan, materializeCache, primeRequestState, type RequestState } from './requestState.ts';

export interface DecodeContext {
  model: Code2WavModel;
  seed: number;
  progress: ProgressWriter;
  states: Map<string, RequestState>;
  onPhase(phase: string, details: PhaseDetails): void;
}

interface Row {
  index: number;
  item: DecodeItem;
  state: RequestState | null;
  frames: number;
  mu?: Float32Array;
  cfm?: CfmRow;
  samples?: Float32Array;
  error?: string;
}

function runFault(fault: FaultOrder): void {
  switch (fault.kind) {
    case 'block':
      blockOnDeviceSync();
      break;
    case 'spin':
      spinInKernel();
      break;
    case 'slow':
      waitOnSlowDevice(fault.delayMs);
      break;
    default: {
      const never: never = fault.kind;
      throw new Error(`unknown fault ${String(never)}`);
    }
  }
}

/**
 * Each row's request state: primed at its first chunk, else the one its
 * previous chunk left, which must be this chunk's predecessor in the same
 * cache epoch (a row without one is dropped with the reason).
 */
function bindStates(rows: Row[], ctx: DecodeContext): void {
  for (const r of rows) {
    let st = ctx.states.get(r.item.key) ?? null;
    if (r.item.chunkSeq === 0) {
      st = primeRequestState(ctx.model, ctx.seed, r.item.cacheEpoch);
      ctx.states.set(r.item.key, st);
    }
    if (!st) r.error = 'missing_state_for_chunk';
    else if (st.nextChunkSeq !== r.item.chunkSeq || st.cacheEpoch !== r.item.cacheEpoch)
      r.error = 'stale_or_reordered_chunk';
    else r.state = st;
  }
}

/** A row's answer: its WAV, nothing for a row whose client went away, or the reason it was dropped. */
function outputOf(r: Row, progress: ProgressWriter): DecodeOutput {
  if (r.error) return { key: r.item.key, wav: null, samples: 0, error: r.error };
  if (!r.samples || progress.isCancelled(r.index)) return { key: r.item.key, wav: null, samples: 0 };
  return { key: r.item.key, wav: wavBytes(floatToPcm16(r.samples), SAMPLE_RATE), samples: r.samples.length };
}

export function decodeBatch(
  ctx: DecodeContext,
  opId: number,
  items: DecodeItem[],
  settings: DecodeSettings,
  fault: FaultOrder | null,
): DecodeOutput[] {
  const { model, seed, progress, states } = ctx;
  let faultPending = fault;
  const enter = (phase: string, details: Record<string, unknown>) => {
    ctx.onPhase(phase, progress.phase(phase, details));
    if (faultPending && faultPending.phase === phase) {
      const f = faultPending;
      faultPending = null;
      runFault(f);
    }
  };
  const rows: Row[] = items.map((item, index) => ({
    index,
    item,
    state: null,
    frames: (item.codes.length - item.contextCodes) * MEL_PER_CODE,
  }));
  const live = () => rows.filter((r) => !r.error && !progress.isCancelled(r.index));
  progress.begin(opId, items.length);

  enter('setup', {
    batch_size: items.length,
    chunk_seqs: items.map((i) => i.chunkSeq).join(','),
    cache_epoch: Math.max(...items.map((i) => i.cacheEpoch)),
    last_chunk: items.some((i) => i.lastChunk),
  });
  bindStates(live(), ctx);

  let active = live();
  enter('encoder', {
    codes: active.reduce((a, r) => a + r.item.codes.length, 0),
    frames: active.reduce((a, r) => a + r.frames, 0),
  });
  for (const r of active) {
    const all = encodeCodes(model, r.item.codes);
    const mu = all.slice(r.item.contextCodes * MEL_PER_CODE * MEL_BINS);
    for (let f = 0; f < r.frames; f++) for (let m = 0; m < MEL_BINS; m++) mu[f * MEL_BINS + m] += r.state!.speaker[m];
    r.mu = mu;
  }

  active = live();
  const schedule = cosineSchedule(settings.steps);
  const cfmDetails = (step: number, n: number) => ({
    mode: settings.mode,
    steps: settings.steps,
    step,
    cfg_rate: settings.cfg ? settings.cfgRate : 0,
    rows: n * (settings.cfg ? 2 : 1),
  });
  enter('cfm', cfmDetails(0, active.length));
  for (const r of active) r.cfm = { x: startNoise(seed, r.item.chunkSeq, r.frames), mu: r.mu!, frames: r.frames };
  for (let k = 0; k < settings.steps; k++) {
    active = live();
    if (k > 0 && settings.mode === 'eager') enter('cfm', cfmDetails(k, active.length));
    cfmStep(
      model,
      active.map((r) => r.cfm!),
      schedule[k],
      schedule[k + 1] - schedule[k],
      settings.cfg,
      settings.cfgRate,
    );
  }

  active = live();
  const plans = active.map((r) => cachePlan(r.state!, r.frames));
  enter('cache_materialization', {
    cache_frames: plans.reduce((a, p) => a + p.cacheFrames, 0),
    pruned: plans.reduce((a, p) => a + p.pruned, 0),
  });
  for (const r of active) materializeCache(r.state!, r.cfm!.x);

  active = live();
  const melFrames = active.reduce((a, r) => a + r.frames, 0);
  enter('hift', { mel_frames: melFrames, samples: melFrames * HOP });
  for (const r of active) {
    r.samples = synthesize(r.cfm!.x, r.frames, r.state!.hift, r.item.lastChunk, seed, r.item.chunkSeq);
    r.state!.nextChunkSeq++;
  }

  active = live();
  enter('output_copy', { bytes: active.reduce((a, r) => a + 44 + 2 * r.samples!.length, 0), chunks: active.length });
  const outputs = rows.map((r) => outputOf(r, progress));
  for (const r of rows) if (r.item.lastChunk || progress.isCancelled(r.index)) states.delete(r.item.key);
  progress.end();
  return outputs;
}
