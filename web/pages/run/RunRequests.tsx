/**
 * The run's requests: the timeline with the open request's detail beside it,
 * then the charts; or, for a run without per-request data, what it has
 * instead.
 */
import { lazy, Suspense, useMemo } from 'react';
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import { RequestDetail } from '../../components/RequestDetail.tsx';
import { shownBreaker } from '../../../shared/runView/runStory.ts';
import { Empty, Loading } from '../../components/States.tsx';
import { Timeline } from '../../components/timeline/Timeline.tsx';
import { SessionLanes } from '../../components/timeline/SessionLanes.tsx';
import { sessionRows } from '../../../shared/runView/sessions.ts';
import { href } from '../../state/router.ts';
import { prunedWords } from '../../state/runData.ts';
import type { RunModel } from '../../../shared/runView/runModel.ts';
import { shownRow, shownRows } from '../../../shared/runView/unsentRows.ts';
import { plural } from '../../../shared/format.ts';

// Recharts is the biggest part of the bundle: load it beside the timeline, not before it.
const RunCharts = lazy(() => import('../../charts/RunCharts.tsx').then((m) => ({ default: m.RunCharts })));

interface RunRequestsProps {
  id: string;
  model: RunModel;
  detail: RunDetail;
  nowT: number;
  running: boolean;
  loaded: boolean;
  /** Why the timeline shows less than the result holds, if it does. */
  gap: string | null;
  selected: number | null;
  select: (i: number | null) => void;
  highlight?: ReadonlySet<string>;
  scrollTo: number | null;
  /** Changes when a link or a find opened the selected request (its panel is then aligned below the top bar). */
  linkSeq: number;
  /** Show only these requests (a story link's range). */
  only?: readonly number[];
  onShowAll: () => void;
  /** The result's metrics, for the charts' concurrency figures (null while live). */
  metrics: Record<string, unknown> | null;
}

export function RunRequests(p: RunRequestsProps) {
  const { model, nowT } = p;
  // Unsent ranges' rows as ended there: the charts count and the session lanes place every request.
  const rows = useMemo(() => shownRows(model), [model]);
  if (model.requests.length === 0 && !p.running && p.loaded && p.detail.prunedAtMs !== null)
    return (
      <p className="notice" data-testid="timeline-pruned">
        {prunedWords(p.detail.prunedAtMs)}
      </p>
    );
  if (model.requests.length === 0 && !p.running && p.loaded)
    return (
      <Empty>
        No per-request data for this run
        {p.detail.source === 'import' ? ': it was imported from a result file without per-request arrays' : ''}. The
        metrics below are what the result holds.
      </Empty>
    );
  // A stored run's rows are still on their way: say so, not "0 rows — No requests yet".
  if (model.requests.length === 0 && !p.running && !p.loaded)
    return <Loading what={plural(p.detail.counts.total, 'request')} />;
  const sel = p.selected !== null ? shownRow(model, model.requests[p.selected]) : undefined;
  const opsOf = (rid: string) => (model.opsByRequest[rid] ?? []).map((k) => model.ops[k]).filter(Boolean);
  return (
    <>
      {p.gap && (
        <p className="notice" data-testid="timeline-gap">
          {p.gap}
        </p>
      )}
      <div className={`tl-wrap${sel ? ' with-detail' : ''}`}>
        <Timeline
          model={model}
          nowT={nowT}
          selected={p.selected}
          onSelect={p.select}
          highlight={p.highlight}
          scrollTo={p.scrollTo}
          only={p.only}
          onShowAll={p.onShowAll}
        />
        {sel && (
          <RequestDetail
            row={sel}
            ops={opsOf(sel.requestId)}
            nowT={nowT}
            link={href({ page: 'run', id: p.id, request: sel.index })}
            onClose={() => p.select(null)}
            linkSeq={p.linkSeq}
            stop={shownBreaker(model, p.detail).stoppedBy}
          />
        )}
      </div>
      {model.info?.turnsPerSession !== undefined && (
        <SessionLanes rows={sessionRows(rows, model.info.turnsPerSession)} endT={nowT} onSelect={p.select} />
      )}
      <Suspense fallback={<Loading what="charts" />}>
        <RunCharts rows={rows} endMs={nowT} live={p.running} metrics={p.metrics} />
      </Suspense>
    </>
  );
}
