/**
 * Switching the New-run form's target between the embedded reproduction
 * server and a URL, without losing what either held. A preset's embedded
 * target carries its fault plan and watchdog; picking "url" and then
 * "embedded" again must give them back, or the run quietly runs clean and
 * passes. Each kind's last target is kept while the form shows the other,
 * and a kind never shown starts from its plain defaults. Pure, outside React.
 */

export type TargetKind = 'embedded' | 'url';

/** What a target of each kind starts from when first picked. */
export const TARGET_DEFAULTS: Readonly<Record<TargetKind, Readonly<Record<string, unknown>>>> = {
  embedded: { kind: 'embedded', faults: [], watchdogTimeoutS: 0, workers: 1, maxBatch: 4 },
  url: { kind: 'url', baseUrl: 'http://127.0.0.1:8000' },
};

/** The target each kind had when the form last showed it. */
export type KeptTargets = Partial<Record<TargetKind, unknown>>;

const kindOf = (target: unknown): TargetKind | null => {
  const k = (target as { kind?: unknown } | null | undefined)?.kind;
  return k === 'embedded' || k === 'url' ? k : null;
};

/**
 * The form's target after picking `kind`: the one that kind had last (as the
 * preset set it, or as edited since), else its defaults; the target being
 * left is kept for the way back.
 */
export function switchTarget(
  current: unknown,
  kind: TargetKind,
  kept: KeptTargets,
): { target: unknown; kept: KeptTargets } {
  const from = kindOf(current);
  if (from === kind) return { target: current, kept };
  const next = { ...kept, ...(from ? { [from]: current } : {}) };
  const target = structuredClone(next[kind] ?? TARGET_DEFAULTS[kind]);
  return { target, kept: next };
}
