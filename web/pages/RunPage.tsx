/**
 * The run view, live while the run is running and the same view replayed
 * from the store once saved: header (status, elapsed, verdict, breaker,
 * cancel), exports, counters, blocked-phase view, timeline, request detail
 * (brought into view; `?req=N` opens it), charts, metrics table. `?stall=w0-op3`
 * brings that stall report into view (a link from the Stalls board).
 */
import { abandonRun, ApiError, cancelRun, deleteRun, pinRun } from '../api/rest.ts';
import { AccuracyGate } from '../components/AccuracyGate.tsx';
import { BlockedPhaseView } from '../components/BlockedPhaseView.tsx';
import { CopyBugReport } from '../components/stall/CopyBugReport.tsx';
import { Counters } from '../components/Counters.tsx';
import { ExportBar } from '../components/ExportBar.tsx';
import { MetricsTable } from '../components/MetricsTable.tsx';
import { RunStory } from '../components/RunStory.tsx';
import { LivenessCard } from '../components/stall/LivenessCard.tsx';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { useAppState } from '../hooks/services.ts';
import { useAllowed } from '../hooks/useScope.ts';
import { gateView } from '../state/accuracy.ts';
import { perRequestData, timelineGap } from '../state/runData.ts';
import { href, navigate } from '../state/router.ts';
import { shownBreaker, shownCounts, storyOf } from '../../shared/runView/runStory.ts';
import { RunHeader } from './run/RunHeader.tsx';
import { DroppedEvents, RunWarnings, VerdictReasons } from './run/RunNotes.tsx';
import { RunRequests } from './run/RunRequests.tsx';
import { useRequestSelection } from './run/useRequestSelection.ts';
import { useRunClock } from './run/useRunClock.ts';
import { useRunDetail } from './run/useRunDetail.ts';
import { useRunStalls } from './run/useRunStalls.ts';
import { startingWords } from '../state/runFacts.ts';
import { runName } from '../state/runName.ts';
import { TopbarTitle } from './run/TopbarTitle.tsx';

interface RunPageProps {
  id: string;
  /** `?req=N`: the request whose panel is open. */
  request?: number;
  /** `?stall=w0-op3`: the stall report brought into view. */
  stall?: string;
  /** `?reqs=5-8`: only these requests in the timeline. */
  only?: number[];
}

export function RunPage({ id, request, stall, only }: RunPageProps) {
  const model = useAppState((s) => s.runs[id]);
  const { detail, error, loaded, retry } = useRunDetail(id, model);
  const pick = useRequestSelection(id, request, model, only);
  const { running, now, nowT, startedAtMs } = useRunClock(model, detail);
  const stalls = useRunStalls(model, detail, startedAtMs);
  const allowed = useAllowed();

  if (error instanceof ApiError && error.status === 404) return <RunMissing id={id} />;
  if (error) return <ErrorState error={error} retry={retry} />;
  if (!model || !detail) return <Loading what={`run ${id}`} />;

  const summary = model.summary ?? detail.summary;
  const status = model.status === 'unknown' ? detail.status : model.status;
  const verdict = model.verdict ?? detail.verdict;
  const counts = shownCounts(model, detail.counts);
  const breaker = shownBreaker(model, detail);
  const gate = gateView(model.accuracy, model.requests, summary?.metrics ?? null);
  const data = perRequestData(model.requests);
  const metrics = (summary?.metrics ?? {}) as Record<string, unknown>;
  // The result's key, or what the dashboard recorded (a reported run marked abandoned has no result).
  const key = metrics.interrupt_cause;
  const interruptCause = typeof key === 'string' ? key : detail.interruptCause;
  const starting = startingWords(detail, model, running);
  const story = storyOf(model, detail, stalls, nowT, interruptCause);

  return (
    <div className="run-page" data-testid="run-page" data-run-id={id} data-loaded={loaded} aria-busy={!loaded}>
      <RunHeader
        detail={detail}
        status={status}
        verdict={verdict}
        elapsedS={!running && summary && summary.durationS > 0 ? summary.durationS : nowT / 1000}
        breaker={breaker}
        running={running}
        message={!model.info || model.status !== 'running' ? model.statusMessage : null}
        interruptCause={interruptCause}
        info={model.info}
        starting={starting}
        onCancel={() => cancelRun(id)}
        onAbandon={() => abandonRun(id)}
        onDelete={() => deleteRun(id).then(() => navigate({ page: 'runs' }))}
        onPin={(pinned) => pinRun(id, pinned)}
        onFindRequest={(i) => pick.findRequests([i])}
        identity={detail.serverIdentity ?? model.info?.serverIdentity ?? null}
        canManage={allowed.manageRuns}
      />
      <TopbarTitle name={runName(detail)} verdict={verdict} status={status} />
      <ExportBar id={id} data={running || !loaded ? null : data} />
      <DroppedEvents n={detail.droppedEvents} error={detail.droppedError} />
      {!starting && (
        <Counters counts={counts} inFlight={running ? model.inFlight : undefined} stop={breaker.stoppedBy} />
      )}
      {summary && <VerdictReasons reasons={summary.verdictReasons} verdict={verdict} />}
      <RunStory runId={id} clauses={story} onFindRequests={pick.findRequests} />
      {gate && <AccuracyGate gate={gate} />}
      <BlockedPhaseView
        stalls={stalls}
        model={model}
        nowWallMs={now}
        onFindRequest={pick.findRequest}
        ended={!running}
        firstTimeout={detail.firstTimeout}
        focus={stall}
        metadata={detail.metadata}
      />
      {!running && <CopyBugReport runId={id} />}
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
        linkSeq={pick.linkSeq}
        only={only}
        onShowAll={pick.showAll}
        metrics={summary ? metrics : null}
      />
      <section className="panel">
        <h2>Metrics</h2>
        <MetricsTable results={summary ? [summary.metrics] : []} stops={[breaker.stoppedBy]} />
      </section>
      <RunWarnings warnings={model.warnings} />
    </div>
  );
}

/** A run not (yet) there: a CI log's link clicked before its CLI started reporting; the page shows it when it is. */
function RunMissing({ id }: { id: string }) {
  return (
    <Empty>
      <span data-testid="run-missing" role="status">
        No run with id {id} yet: this page shows it as soon as it is created (a reported run appears when its CLI starts
        reporting).
      </span>{' '}
      <a href={href({ page: 'runs' })}>See the runs.</a>
    </Empty>
  );
}
