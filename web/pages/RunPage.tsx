/**
 * The run view, live while the run is running and the same view replayed
 * from the store once saved: header (status, elapsed, verdict, breaker,
 * cancel), exports, counters, blocked-phase view, timeline, request detail
 * (brought into view; `?req=N` opens it), charts, metrics table.
 */
import { ApiError, cancelRun } from '../api/rest.ts';
import { AccuracyGate } from '../components/AccuracyGate.tsx';
import { BlockedPhaseView } from '../components/BlockedPhaseView.tsx';
import { Counters } from '../components/Counters.tsx';
import { ExportBar } from '../components/ExportBar.tsx';
import { MetricsTable } from '../components/MetricsTable.tsx';
import { RunStory } from '../components/RunStory.tsx';
import { LivenessCard } from '../components/stall/LivenessCard.tsx';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { useAppState } from '../hooks/services.ts';
import { gateView } from '../state/accuracy.ts';
import { perRequestData, timelineGap } from '../state/runData.ts';
import { href } from '../state/router.ts';
import { blockedWaits, runStory, shownCounts } from '../state/runStory.ts';
import { RunHeader } from './run/RunHeader.tsx';
import { RunWarnings, VerdictReasons } from './run/RunNotes.tsx';
import { RunRequests } from './run/RunRequests.tsx';
import { useRequestSelection } from './run/useRequestSelection.ts';
import { useRunClock } from './run/useRunClock.ts';
import { useRunDetail } from './run/useRunDetail.ts';
import { useRunStalls } from './run/useRunStalls.ts';

export function RunPage({ id, request }: { id: string; request?: number }) {
  const model = useAppState((s) => s.runs[id]);
  const { detail, error, setError, loaded, retry } = useRunDetail(id, model);
  const pick = useRequestSelection(id, request, model);
  const { running, now, nowT, startedAtMs } = useRunClock(model, detail);
  const stalls = useRunStalls(model, detail, startedAtMs);

  if (error instanceof ApiError && error.status === 404)
    return (
      <Empty>
        <span data-testid="run-missing">No run with id {id}.</span> <a href={href({ page: 'runs' })}>See the runs.</a>
      </Empty>
    );
  if (error) return <ErrorState error={error} retry={retry} />;
  if (!model || !detail) return <Loading what={`run ${id}`} />;

  const summary = model.summary ?? detail.summary;
  const verdict = model.verdict ?? detail.verdict;
  const counts = shownCounts(model, detail.counts);
  const breaker = model.breaker.tripped
    ? model.breaker
    : { tripped: detail.breaker.tripped, cause: detail.breaker.cause, stoppedBy: detail.breaker.stoppedBy ?? null };
  const gate = gateView(model.accuracy, model.requests, summary?.metrics ?? null);
  const data = perRequestData(model.requests);
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
        onFindRequest={(i) => pick.findRequests([i])}
      />
      <ExportBar id={id} data={running || !loaded ? null : data} />
      <Counters counts={counts} inFlight={running ? model.inFlight : undefined} />
      {summary && <VerdictReasons reasons={summary.verdictReasons} verdict={verdict} />}
      <RunStory runId={id} clauses={story} onFindRequests={pick.findRequests} />
      {gate && <AccuracyGate gate={gate} />}
      <BlockedPhaseView
        stalls={stalls}
        model={model}
        nowWallMs={now}
        onFindRequest={pick.findRequest}
        ended={!running}
      />
      {model.liveness && <LivenessCard report={model.liveness.report} />}
      <RunRequests
        id={id}
        model={model}
        detail={detail}
        nowT={nowT}
        running={running}
        loaded={loaded}
        gap={loaded ? timelineGap(data, detail.source) : null}
        selected={pick.selected}
        select={pick.select}
        highlight={pick.highlight}
        scrollTo={pick.scrollTo}
        metrics={summary ? metrics : null}
      />
      <section className="panel">
        <h2>Metrics</h2>
        <MetricsTable results={summary ? [summary.metrics] : []} />
      </section>
      <RunWarnings warnings={model.warnings} />
    </div>
  );
}
