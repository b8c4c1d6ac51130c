/**
 * Detail of one request: its times, metrics, error, and its Code2Wav
 * operations phase by phase. Brought into view when it opens or shows another
 * request (at 1024 px it sits under the whole timeline), with a link to itself.
 */
import { useEffect, useRef } from 'react';
import type { OpRecord, RequestView } from '../../shared/runView/runModel.ts';
import { Code2WavOps } from './request/Code2WavOps.tsx';
import { RequestFacts } from './request/RequestFacts.tsx';

export function RequestDetail({
  row,
  ops,
  nowT,
  link,
  onClose,
}: {
  row: RequestView;
  ops: readonly OpRecord[];
  nowT: number;
  /** The deep link that opens this request (`#/runs/ID?req=N`). */
  link?: string;
  onClose: () => void;
}) {
  const box = useRef<HTMLElement>(null);
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'nearest' });
  }, [row.index]);
  return (
    <aside ref={box} className="detail" aria-label={`Request ${row.index}`} data-testid="request-detail">
      <header>
        <h2>
          Request #{row.index} <span className={`pill end-${row.status}`}>{row.status.replace(/_/g, ' ')}</span>
        </h2>
        <span className="detail-actions">
          {link && (
            <a href={link} className="small" data-testid="request-link" title="A link that opens this request">
              link
            </a>
          )}
          <button type="button" onClick={onClose} aria-label="Close request detail">
            ×
          </button>
        </span>
      </header>
      <RequestFacts row={row} />
      <Code2WavOps ops={ops} nowT={nowT} />
    </aside>
  );
}
