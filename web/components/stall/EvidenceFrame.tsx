/**
 * One piece of stall evidence on the run page, with its fingerprint: brought
 * into view and marked when the URL names it (`?stall=w0-op3`, a link from
 * the Stalls board).
 */
import { useEffect, useRef, type ReactNode } from 'react';
import type { StallFingerprint } from '../../../shared/stalls/fingerprint.ts';
import { FingerprintLine } from './FingerprintLine.tsx';
import '../../styles/evidence.css';

export function EvidenceFrame({
  refName,
  fp,
  focused,
  children,
}: {
  refName: string;
  fp: StallFingerprint;
  focused: boolean;
  children: ReactNode;
}) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focused) el.current?.scrollIntoView({ block: 'start' });
  }, [focused]);
  return (
    <div ref={el} className={`evidence${focused ? ' focused' : ''}`} data-ref={refName} data-testid="stall-evidence">
      {children}
      <FingerprintLine fp={fp} />
    </div>
  );
}
