/**
 * The stall card from this process's own evidence, for a run without `--report-to` (or whose dashboard could
 * not be read): the board's rule on what the bench saw — its py-spy capture's stack fingerprint when it took
 * one, else the first timeout's phase-only fingerprint (`unknown`: the client sees no server telemetry).
 */
import { reportFingerprint } from '../../../shared/stalls/stallEvidence.ts';
import { stallFingerprint } from '../../../shared/stalls/fingerprint.ts';
import { frameLine, type CiStall } from './ciReport.ts';
import type { RunEvidence } from './runEvidence.ts';

export function ownStall(evidence: RunEvidence): CiStall | null {
  const capture = evidence.stacks[0];
  if (capture) {
    const fp = reportFingerprint(capture);
    return { source: 'bench', ...pick(fp), stack: capture.stack.map(frameLine), boardSentence: null };
  }
  if (!evidence.firstTimeout) return null;
  return { source: 'bench', ...pick(stallFingerprint('unknown', [])), stack: [], boardSentence: null };
}

const pick = (fp: { fingerprint: string; phase: string; label: string }) => ({
  fingerprint: fp.fingerprint,
  phase: fp.phase,
  label: fp.label,
});
