/**
 * The run view, live while the run is running and the same view replayed
 * from the store once saved: header (status, elapsed, verdict, breaker,
 * cancel), exports, counters, blocked-phase view, timeline, request detail
 * (brought into view; `?req=N` opens it), charts, metrics table.
 */
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import type { RunDetail } from '../../shared/apiSchemas.ts';
import { ApiError, cancelRun, getRun } from '../api/rest.ts';
import { loadRun } from '../api/runLoader.ts';
import { AccuracyGate } from '../components/AccuracyGate.tsx';
import { BlockedPhaseView } from '../components/BlockedPhaseView.tsx';
import { gateView } from '../state/accuracy.ts';
import { Counters } from '../components/Counters.tsx';
import { ExportBar } from '../components/ExportBar.tsx';
import { MetricsTable } from '../components/MetricsTable.tsx';
import { RequestDetail } from '../components/RequestDetail.tsx';
import { RunStory } from '../components/RunStory.tsx';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { Timeline } from '../components/timeline/Timeline.tsx';
import { useNow } from '../hooks/redraw.ts';
import { useAppState, useServices } from '../hooks/services.ts';
import { perRequestData, timelineGap } from '../state/runData.ts';
import { href } from '../state/router.ts';
import type { StallRecord } from '../state/runModel.ts';
import { blockedWaits, runStory, shownCounts } from '../state/runStory.ts';
import { RunHeader } from './RunHeader.tsx';

// Recharts is the biggest part of the bundle: load it beside the timeline, not before it.
const RunCharts = lazy(() => import('../charts/RunCharts.tsx').then((m) => ({ default: m.RunCharts })));

export function RunPage({ id, request }: { id: string; request?: number }) {
  const svc = useServices();
  const [detail, setDetail] = useState<RunDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const [loaded, setLoaded] = useState(false);
  const [selected, setSelected] = useState<number | null>(request ?? null);
  const [scrollTo, setScrollTo] = useState<number | null>(request ?? null);
  const [highlight, setHighlight] = useState<ReadonlySet<string> | undefined>(undefined);
  const model = useAppState((s) => s.runs[id]);

  // A link to another request of this run (`?req=N`, Back) selects it; selecting one puts it in the URL.
  const [linked, setLinked] = useState(request);
  if (request !== linked) {
    setLinked(request);
    if (request !== undefined) {
      setSelected(request);
      setScrollTo(request);
    }
  }
  const select = (i: number | null) => {
    setSelected(i);
    // Replace, not push: arrowing through requests must not fill the history.
    window.history.replaceState(null, '', href({ page: 'run', id, ...(i !== null ? { request: i } : {}) }));
  };

  useEffect(() => {
    return loadRun(svc, id, { onDetail: setDetail, onError: setError, onLoaded: () => setLoaded(true) });
  }, [svc, id, attempt]);

  // When a watched run ends, read its detail again: summary, error and stored stall reports are final now.
  const ended = model !== undefined && model.status !== 'running' && model.status !== 'unknown';
  useEffect(() => {
    if (ended && detail?.status === 'running') getRun(id).then(setDetail, () => {});
  }, [ended, detail?.status, id]);

  const running = model
    ? model.status === 'running' || (model.status === 'unknown' && detail?.status === 'running')
    : false;
  const now = useNow(running, 200);
  const startedAtMs = model?.startedAtMs ?? detail?.startedAtMs ?? null;
  const nowT = model
    ? running && startedAtMs !== null
      ? Math.max(model.lastT, now - startedAtMs)
      : (model.finishedT ?? model.lastT)
    : 0;

  const stalls: StallRecord[] = useMemo(() => {
    if (model && model.stalls.length > 0) return model.stalls;
    // Runs without a telemetry stream (e.g. imports) may still carry stored reports.
    return (detail?.stallReports ?? []).map((e) => {
      const report = e.report;
      return {
        t: startedAtMs !== null ? report.capturedAtMs - startedAtMs : 0,
        report,
        recovered: e.recovered ? { t: 0, stalledS: e.recovered.stalledS } : null,
      };
    });
  }, [model, detail, startedAtMs]);

  if (error instanceof ApiError && error.status === 404)
    return (
      <Empty>
        <span data-testid="run-missing">No run with id {id}.</span> <a href={href({ page: 'runs' })}>See the runs.</a>
      </Empty>
    );
  if (error)
    return (
      <ErrorState
        error={error}
        retry={() => {
          setError(null);
          setLoaded(false);
          setAttempt((a) => a + 1);
        }}
      />
    );
  if (!model || !detail) return <Loading what={`run ${id}`} />;

  const summary = model.summary ?? detail.summary;
  const verdict = model.verdict ?? detail.verdict;
  const counts = shownCounts(model, detail.counts);
  const breaker = model.breaker.tripped
    ? model.breaker
    : { tripped: detail.breaker.tripped, cause: detail.breaker.cause };
  const sel = selected !== null ? model.requests[selected] : undefined;
  const gate = gateView(model.accuracy, model.requests, summary?.metrics ?? null);
  const data = perRequestData(model.requests);
  const gap = loaded ? timelineGap(data, detail.source) : null;
  const opsOf = (rid: string) => (model.opsByRequest[rid] ?? []).map((k) => model.ops[k]).filter(Boolean);
  const findRequest = (rid: string) => {
    const i = model.indexById[rid];
    if (i === undefined) return;
    select(i);
    setScrollTo(i);
    setHighlight(new Set([rid]));
  };
  const findRequests = (indices: readonly number[]) => {
    const ids = indices.map((i) => model.requests[i]?.requestId).filter((x): x is string => !!x);
    if (ids.length === 0) return;
    findRequest(ids[0]);
    setHighlight(new Set(ids));
  };
  const metrics = (summary?.metrics ?? {}) as Record<string, unknown>;
  const interruptCause = metrics.interrupt_cause ?? null;
  const story = runStory({
    model: { ...model, breaker: { ...model.breaker, ...breaker } },
    stalls,
    counts,
    waits: blockedWaits(model, nowT),
    interruptCause: typeof interruptCause === 'string' ? interruptCause : null,
  });

  return (
    <div className="run-page" data-testid="run-page" data-run-id={id} data-loaded={loaded} aria-busy={!loaded}>
      <RunHeader
        detail={detail}
        status={model.status === 'unknown' ? detail.status : model.status}
        verdict={verdict}
        elapsedS={!running && summary && summary.durationS > 0 ? summary.durationS : nowT / 1000}
        breaker={breaker}
        running={running}
        message={!model.info || model.status !== 'running' ? model.statusMessage : null}
        interruptCause={interruptCause}
        onCancel={() => cancelRun(id).catch(setError)}
        onFindRequest={(i) => findRequests([i])}
      />
      <ExportBar id={id} data={running || !loaded ? null : data} />
      <Counters counts={counts} inFlight={running ? model.inFlight : undefined} />
      {summary && summary.verdictReasons.length > 0 && (
        <ul className={`reasons verdict-${verdict ?? 'none'}`} data-testid="verdict-reasons" data-verdict={verdict}>
          {summary.verdictReasons.map((r, i) => (
            <li key={i}>{r}</li>
          ))}
        </ul>
      )}
      <RunStory runId={id} clauses={story} onFindRequests={findRequests} />
      {gate && <AccuracyGate gate={gate} />}
      <BlockedPhaseView stalls={stalls} model={model} nowWallMs={now} onFindRequest={findRequest} ended={!running} />
      {model.requests.length === 0 && !running && loaded ? (
        <Empty>
          No per-request data for this run
          {detail.source === 'import' ? ': it was imported from a result file without per-request arrays' : ''}. The
          metrics below are what the result holds.
        </Empty>
      ) : (
        <>
          {gap && (
            <p className="notice" data-testid="timeline-gap">
              {gap}
            </p>
          )}
          <div className={`tl-wrap${sel ? ' with-detail' : ''}`}>
            <Timeline
              model={model}
              nowT={nowT}
              selected={selected}
              onSelect={select}
              highlight={highlight}
              scrollTo={scrollTo}
            />
            {sel && (
              <RequestDetail
                row={sel}
                ops={opsOf(sel.requestId)}
                nowT={nowT}
                link={href({ page: 'run', id, request: sel.index })}
                onClose={() => select(null)}
              />
            )}
          </div>
          <Suspense fallback={<Loading what="charts" />}>
            <RunCharts rows={model.requests} endMs={nowT} live={running} metrics={summary ? metrics : null} />
          </Suspense>
        </>
      )}
      <section className="panel">
        <h2>Metrics</h2>
        <MetricsTable results={summary ? [summary.metrics] : []} />
      </section>
      {model.warnings.length > 0 && (
        <section className="panel">
          <h2>Warnings ({model.warnings.length})</h2>
          <ul className="warnings">
            {model.warnings.map((w, i) => (
              <li key={i}>
                {w.index !== undefined ? `#${w.index}: ` : ''}
                {w.message}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
