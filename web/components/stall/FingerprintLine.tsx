/**
 * A stall's fingerprint under its card (docs/design.md#stall-fingerprints):
 * the name people use (`hift/blockOnDeviceSync`), the id, the frames it is
 * made of, and the way to the Stalls board where its other occurrences are.
 */
import type { StallFingerprint } from '../../../shared/stalls/fingerprint.ts';
import { href } from '../../state/router.ts';

export function FingerprintLine({ fp }: { fp: StallFingerprint }) {
  return (
    <p className="fingerprint" data-testid="fingerprint" data-fingerprint={fp.fingerprint}>
      Fingerprint <strong>{fp.label}</strong>{' '}
      <code title="the same hang on another build or node has this id">{fp.fingerprint}</code>
      {fp.frames.length > 0 && <span className="muted"> · {fp.frames.join(' ← ')}</span>} ·{' '}
      <a href={href({ page: 'stalls' })}>where else it occurred</a>
    </p>
  );
}
