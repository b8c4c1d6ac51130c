/**
 * Stalls: the pattern across runs (docs/design.md#stall-board). One row per
 * stall fingerprint — phase, top frames, occurrences, first and last seen,
 * the builds, nodes and commits it occurred on — and under it the strip of
 * each CI job it occurred in (runs by node, hang rates, the one sentence),
 * every occurrence with links to its evidence, and Compare with the nearest
 * passing control in one click. Filters (metadata, dates) live in the URL.
 */
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import type { StallsQuery } from '../state/router.ts';
import { StallBoard } from './stalls/StallBoard.tsx';
import { StallFilters } from './stalls/StallFilters.tsx';
import { useStalls } from './stalls/useStalls.ts';
import '../styles/stalls.css';

export function StallsPage({ query }: { query: StallsQuery }) {
  const { data, error, load } = useStalls(query);
  const filtered = Boolean(query.meta || query.since || query.until);
  return (
    <div className="stalls-page" data-testid="stalls-page" data-loaded={data !== null}>
      <div className="page-head">
        <h1>Stalls</h1>
      </div>
      <p className="muted">
        Every stall seen across the stored runs, grouped by fingerprint: the blocked phase and the top frames of the
        thread holding the work. Runs reported from CI carry their build, node, commit and job.
      </p>
      <StallFilters query={query} />
      {error ? (
        <ErrorState error={error} retry={load} />
      ) : !data ? (
        <Loading what="the stall board" />
      ) : data.groups.length === 0 ? (
        <Empty>{filtered ? 'No stall in the runs these filters select.' : 'No stall recorded yet.'}</Empty>
      ) : (
        <>
          <StallBoard groups={data.groups} />
          <p className="muted" data-testid="board-scope">
            From {data.runsConsidered} run{data.runsConsidered === 1 ? '' : 's'}
            {data.truncated ? ' (the newest; narrow the filters to reach older ones)' : ''}.
          </p>
        </>
      )}
    </div>
  );
}
