/**
 * Timeline geometry, pure: which segments a request row has, where they sit
 * in pixels for a given view, and how zoom and pan move the view. Times are
 * ms on the run clock; the component only maps the results to elements.
 */
import { C2W_PHASES } from '../../../shared/types.ts';
import type { OpRecord, RequestView } from '../../../shared/runView/runModel.ts';

/** The visible time window and the pixel width it maps onto. */
export interface View {
  t0: number;
  t1: number;
  width: number;
}

export type LifeKind = 'queued' | 'waiting' | 'text' | 'audio' | 'blocked';

export interface Segment {
  /**
   * `queued|waiting|text|audio` for the request's life, `blocked` for time
   * spent queued behind a stalled Code2Wav op, `phase` for a Code2Wav phase.
   */
  kind: LifeKind | 'phase';
  t0: number;
  t1: number;
  /** Phase name for `phase` segments. */
  phase?: string;
  /** The op a phase belongs to (`worker:op`), and whether it was open (no end seen). */
  opKey?: string;
  open?: boolean;
  stalled?: boolean;
}

export interface Placed<T> {
  item: T;
  left: number;
  width: number;
}

export const MIN_SPAN_MS = 5;

export function timeToX(t: number, v: View): number {
  return ((t - v.t0) / (v.t1 - v.t0)) * v.width;
}

export function xToTime(x: number, v: View): number {
  return v.t0 + (x / v.width) * (v.t1 - v.t0);
}

/**
 * The phases of a request's life, each ending where the next starts; open
 * ends run to `now`. Time spent queued behind a stalled op (`blocked`, see
 * web/state/runStory.ts) is cut out of them and drawn as its own segment: the
 * stream was not really producing text or audio then.
 */
export function lifeSegments(r: RequestView, now: number, blocked?: { t0: number; t1: number } | null): Segment[] {
  const life = plainLife(r, now);
  if (!blocked) return life;
  const out: Segment[] = [];
  for (const s of life) {
    if (s.t1 <= blocked.t0 || s.t0 >= blocked.t1) out.push(s);
    else {
      if (s.t0 < blocked.t0) out.push({ ...s, t1: blocked.t0 });
      if (s.t1 > blocked.t1) out.push({ ...s, t0: blocked.t1 });
    }
  }
  out.push({ kind: 'blocked', t0: blocked.t0, t1: blocked.t1 });
  return out.sort((a, b) => a.t0 - b.t0);
}

function plainLife(r: RequestView, now: number): Segment[] {
  const end = r.endT ?? now;
  const out: Segment[] = [];
  const push = (kind: LifeKind, a: number | null, b: number) => {
    if (a !== null && b >= a) out.push({ kind, t0: a, t1: b });
  };
  const sent = r.sentT;
  const firstToken = r.firstTokenT;
  const firstAudio = r.firstAudioT;
  push('queued', r.queuedT ?? (sent !== null ? sent : null), sent ?? end);
  if (sent !== null) {
    push('waiting', sent, firstToken ?? firstAudio ?? end);
    if (firstToken !== null) push('text', firstToken, firstAudio ?? end);
    if (firstAudio !== null) push('audio', firstAudio, end);
  }
  return out;
}

/** Phase sub-segments of a request's Code2Wav ops; a phase lasts until the next, the op's end, or `now`. */
export function phaseSegments(ops: readonly OpRecord[], now: number): Segment[] {
  const out: Segment[] = [];
  for (const op of ops) {
    const opEnd = op.endT ?? now;
    op.phases.forEach((p, i) => {
      const next = op.phases[i + 1];
      const t1 = next ? next.t : opEnd;
      out.push({
        kind: 'phase',
        phase: p.phase,
        t0: p.t,
        t1: Math.max(p.t, t1),
        opKey: op.key,
        open: op.endT === null && !next,
        stalled: op.stalled && !next,
      });
    });
  }
  return out;
}

/**
 * Pixel placement of segments in a view: clipped to the view, dropped when
 * outside it, at least `minPx` wide so a short phase stays visible and hoverable.
 */
export function place<T extends { t0: number; t1: number }>(items: readonly T[], v: View, minPx = 1): Placed<T>[] {
  const out: Placed<T>[] = [];
  for (const item of items) {
    if (item.t1 < v.t0 || item.t0 > v.t1) continue;
    const a = Math.max(0, timeToX(item.t0, v));
    const b = Math.min(v.width, timeToX(item.t1, v));
    out.push({ item, left: a, width: Math.max(minPx, b - a) });
  }
  return out;
}

/** The segment under pixel x (topmost = last placed), if any. */
export function hitTest<T>(placed: readonly Placed<T>[], x: number, slopPx = 2): T | undefined {
  for (let i = placed.length - 1; i >= 0; i--) {
    const p = placed[i];
    if (x >= p.left - slopPx && x <= p.left + p.width + slopPx) return p.item;
  }
  return undefined;
}

/** Keep a view inside [0, domainEnd] and at least MIN_SPAN_MS wide. */
export function clampView(v: View, domainEnd: number): View {
  const end = Math.max(domainEnd, MIN_SPAN_MS);
  let span = Math.min(Math.max(v.t1 - v.t0, MIN_SPAN_MS), end);
  let t0 = Math.min(Math.max(0, v.t0), end - span);
  if (!Number.isFinite(t0)) t0 = 0;
  if (!Number.isFinite(span)) span = end;
  return { t0, t1: t0 + span, width: v.width };
}

/** Zoom by `factor` (>1 zooms in) around the time under the pointer. */
export function zoomView(v: View, factor: number, anchorT: number, domainEnd: number): View {
  const span = (v.t1 - v.t0) / factor;
  const frac = (anchorT - v.t0) / (v.t1 - v.t0);
  return clampView({ t0: anchorT - frac * span, t1: anchorT - frac * span + span, width: v.width }, domainEnd);
}

/** Move the view by `dx` pixels (positive = later times). */
export function panView(v: View, dx: number, domainEnd: number): View {
  const dt = (dx / v.width) * (v.t1 - v.t0);
  return clampView({ t0: v.t0 + dt, t1: v.t1 + dt, width: v.width }, domainEnd);
}

/** Round tick positions (1/2/5 × 10^k ms) covering [t0, t1], about `count` of them. */
export function niceTicks(t0: number, t1: number, count = 8): number[] {
  const span = t1 - t0;
  if (!(span > 0) || count < 1) return [];
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1 + 1e-9; t += step) out.push(Math.round(t * 1e6) / 1e6);
  return out;
}

/** A tick label: ms below 1 s, seconds with sensible decimals above. */
export function formatTick(t: number, span: number): string {
  if (span < 2000) return `${Math.round(t)} ms`;
  const s = t / 1000;
  return span < 20_000 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}

/** Phase colour index in pipeline order (unknown phases share the last slot). */
export function phaseIndex(phase: string): number {
  const i = (C2W_PHASES as readonly string[]).indexOf(phase);
  return i < 0 ? C2W_PHASES.length : i;
}
