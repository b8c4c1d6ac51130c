/**
 * A stall's fingerprint: the same hang on another build, node or commit gets
 * the same one, a different blocked place another. Made of the blocked phase
 * and the top frames of the thread that holds the work (function and file
 * name only): line numbers, addresses, thread ids and names, paths (which
 * differ from one node's install to another) and idle or runtime frames
 * (waits, event loops, thread bootstraps) are left out, so what remains is
 * where the work is stuck. Pure, for the engine, the dashboard and the UI.
 */

import { capFile, capFunction, withoutPosition, withoutTrailingPlus } from './frameText.ts';

/** Frames of the working stack kept in a fingerprint. */
export const FINGERPRINT_FRAMES = 3;

export interface FrameLike {
  function: string;
  file: string;
}

export interface StallFingerprint {
  /** 12 hex digits, stable across processes and versions of this code. */
  fingerprint: string;
  phase: string;
  /** `function (file)` of the kept frames, top first. */
  frames: string[];
  /** `phase/function` of the top kept frame (or the phase alone): how people name it. */
  label: string;
}

/** Frames that say "waiting" or "the runtime's own machinery", not "the work". */
const IDLE_FUNCTIONS =
  /^(wait|_wait_for_tstate_lock|wait_for|select|poll|epoll_wait|kevent|recv|recv_into|accept|sleep|run_forever|_run_once|_bootstrap|_bootstrap_inner|_worker|worker|run|main|<module>|processTicksAndRejections|listOnTimeout|process\.processTimers|pthread_cond_wait|pthread_cond_timedwait|__futex_abstimed_wait_common|futex_wait|syscall|clone|start_thread|__libc_start_main|_start)$/;
const RUNTIME_FILES =
  /^(node:|internal\/)|(^|\/)(threading|selectors|queue|socket|subprocess)\.py$|(^|\/)asyncio\/|(^|\/)concurrent\/futures\/|(^|\/)(libc|libpthread|ld-linux)[^/]*$/;

/** Linear: each match starts at `0x`, and its hex digits cannot hold the next one's `x`. */
const ADDRESS = /\b0x[0-9a-f]+\b/gi;

/*
 * Every expression here runs on a peer's text: each is anchored or starts at a literal its quantified part cannot
 * hold, so it is linear in the text, and the text is cut to FRAME_TEXT_MAX first (frameText.ts), as the report
 * schemas require: a longer frame from an older store gets the fingerprint of its cut form.
 */

/** The file's base name without a position suffix (`x.py:12`, `x.ts:4:2`) or a file:// scheme. */
function baseName(file: string): string {
  const noScheme = capFile(file).replace(/^file:\/\//, '');
  const base = noScheme.slice(Math.max(noScheme.lastIndexOf('/'), noScheme.lastIndexOf('\\')) + 1);
  return withoutPosition(base);
}

function normalFunction(fn: string): string {
  return withoutTrailingPlus(capFunction(fn).replace(ADDRESS, ''))
    .replace(/ at\s*>/, '>')
    .trim();
}

/** Whether a frame is idle or runtime machinery (left out of the fingerprint). */
export function isIdleFrame(f: FrameLike): boolean {
  const file = capFile(f.file).replace(/^file:\/\//, '');
  return IDLE_FUNCTIONS.test(normalFunction(f.function)) || RUNTIME_FILES.test(file);
}

/** cyrb53 over the canonical text: 53 bits, printed as 12 hex digits. */
function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const n = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return n.toString(16).padStart(14, '0').slice(-12);
}

/**
 * Which encoding of the canonical fields is hashed: 2 is a JSON array, 1 (before 0.1.1) joined the fields with
 * newlines, which a phase or a function name can hold, so two different stalls could hash alike. A change here
 * changes every fingerprint: both stores recompute the stored ones when they migrate (store/common/refingerprint.ts).
 */
export const FINGERPRINT_ENCODING = 2;

/**
 * The fingerprint of a stall in `phase` whose working thread's stack is
 * `stack` (top first). An empty stack (a timeout seen from the client, a
 * failed capture) gives a phase-only fingerprint.
 */
export function stallFingerprint(phase: string, stack: readonly FrameLike[]): StallFingerprint {
  const kept: [fn: string, file: string][] = [];
  for (const f of stack) {
    if (kept.length === FINGERPRINT_FRAMES) break;
    if (isIdleFrame(f)) continue;
    const fn = normalFunction(f.function);
    if (fn === '') continue;
    kept.push([fn, baseName(f.file)]);
  }
  const p = phase.trim() || 'unknown';
  const top = kept[0]?.[0];
  return {
    // Every field a JSON string of its own: no field's text can pass for a separator (docs/design.md#stall-fingerprints).
    fingerprint: hash53(JSON.stringify([`v${FINGERPRINT_ENCODING}`, p, ...kept])),
    phase: p,
    frames: kept.map(([fn, file]) => `${fn} (${file})`),
    label: top ? `${p}/${top}` : p,
  };
}
