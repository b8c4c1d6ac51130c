/**
 * Detail of one request: its times, metrics, error, and its Code2Wav
 * operations phase by phase. Brought into view when it opens or shows another
 * request (at 1024 px it sits under the whole timeline), its header just below
 * the sticky top bar when it was not on screen (a deep link), with a link to
 * itself. Esc closes it.
 */
import { useEffect, useRef } from 'react';
import type { OpRecord, RequestView } from '../../shared/runView/runModel.ts';
import { Code2WavOps } from './request/Code2WavOps.tsx';
import { RequestFacts } from './request/RequestFacts.tsx';
import { stopCancelLabel, stoppedByRule, type StopLike } from '../../shared/requests/stopLabel.ts';

export function RequestDetail({
  row,
  ops,
  nowT,
  link,
  onClose,
  linkSeq = 0,
  stop,
}: {
  row: RequestView;
  ops: readonly OpRecord[];
  nowT: number;
  /** The deep link that opens this request (`#/runs/ID?req=N`). */
  link?: string;
  onClose: () => void;
  /** Changes when a link or a find (not a click) opened the request: align the panel then, wherever the page was. */
  linkSeq?: number;
  /** The stop rule that stopped the run: its cancelled requests are named by it, not "after timeout". */
  stop?: StopLike;
}) {
  const box = useRef<HTMLElement>(null);
  const alignedFor = useRef(0);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const linked = linkSeq !== alignedFor.current;
    alignedFor.current = linkSeq;
    // Aligned at its top (the root's scroll-padding keeps it below the top bar): "nearest" would
    // bring a tall panel's bottom up and leave its header, and the card above it, cut by the bar.
    // A click beside a panel already in view does not move the page.
    const top = el.getBoundingClientRect().top;
    const bar = document.querySelector('.topbar')?.getBoundingClientRect().bottom ?? 0;
    if (linked || top < bar || top > window.innerHeight - 80) el.scrollIntoView({ block: 'start' });
  }, [row.index, linkSeq]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented) onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <aside ref={box} className="detail" aria-label={`Request ${row.index}`} data-testid="request-detail">
      <header>
        <h2>
          Request #{row.index}{' '}
          <span className={`pill end-${row.status}`} title={row.status}>
            {row.status === 'cancelled_after_timeout' && stoppedByRule(stop)
              ? stopCancelLabel(stop)
              : row.status.replace(/_/g, ' ')}
          </span>
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
      <RequestFacts row={row} stop={stop} />
      <Code2WavOps ops={ops} nowT={nowT} />
    </aside>
  );
}
