/**
 * A stall's fingerprint under its card (docs/design.md#stall-fingerprints):
 * the name people use (`hift/blockOnDeviceSync`), the id, the frames it is
 * made of, and the way to the Stalls board where its other occurrences are.
 */
import type { StallFingerprint } from '../../../shared/stalls/fingerprint.ts';
import { href } from '../../state/router.ts';
import { useRunPlace } from './runPlace.ts';

/** The run's job as the board's metadata filter (its pipeline and step), so the link opens this run's group. */
function jobMeta(m: Readonly<Record<string, string>>): string | undefined {
  const pairs = (['ci_pipeline', 'ci_step'] as const).filter((k) => m[k]).map((k) => `${k}=${m[k]}`);
  return pairs.length ? pairs.join(' ') : undefined;
}

export function FingerprintLine({ fp }: { fp: StallFingerprint }) {
  const meta = jobMeta(useRunPlace());
  return (
    <p className="fingerprint" data-testid="fingerprint" data-fingerprint={fp.fingerprint}>
      Fingerprint <strong>{fp.label}</strong>{' '}
      <code title="the same hang on another build or node has this id">{fp.fingerprint}</code>
      {fp.frames.length > 0 && <span className="muted"> · {fp.frames.join(' ← ')}</span>} ·{' '}
      <a href={href({ page: 'stalls', fp: fp.fingerprint, ...(meta ? { meta } : {}) })} data-testid="where-else">
        where else it occurred
      </a>
    </p>
  );
}
