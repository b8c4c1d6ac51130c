/**
 * Stalls: the pattern across runs (docs/design.md#stall-board). One row per
 * stall fingerprint — phase, top frames, occurrences, first and last seen,
 * the builds, nodes and commits it occurred on — and under it the strip of
 * each CI job it occurred in (runs by node, hang rates, the one sentence),
 * every occurrence with links to its evidence, and Compare with the nearest
 * passing control in one click. Filters (metadata, dates) live in the URL.
 */
import { useMemo } from 'react';
import { Empty, ErrorState, Loading } from '../components/States.tsx';
import { href, type StallsQuery } from '../state/router.ts';
import { CI_KEYS_HINT, groupsShown, moreGroups, shownGroups } from '../state/stallsView.ts';
import { StallBoard } from './stalls/StallBoard.tsx';
import { StallFilters } from './stalls/StallFilters.tsx';
import { useStalls } from './stalls/useStalls.ts';
import '../styles/stalls.css';

export function StallsPage({ query }: { query: StallsQuery }) {
  const { data, error, loadingMore, load } = useStalls(query);
  const filtered = Boolean(query.meta || query.since || query.until || query.fp);
  // Kept while the reply is: each board draws its groups after its first screen only when they change.
  const jobs = useMemo(() => data?.groups.filter((g) => g.scope === 'job') ?? [], [data]);
  const local = useMemo(() => data?.groups.filter((g) => g.scope === 'local') ?? [], [data]);
  const more = data && !loadingMore && moreGroups(query, data);
  return (
    <div className="stalls-page" data-testid="stalls-page" data-loaded={data !== null}>
      <div className="page-head">
        <h1>Stalls</h1>
      </div>
      <p className="muted">
        Every stall seen across the stored runs, grouped per CI job and fingerprint (the blocked phase and the top
        frames of the thread holding the work): each group counts its job&apos;s runs only. Runs without CI metadata are
        grouped apart, below.
      </p>
      <StallFilters query={query} />
      {query.fp && (
        <p data-testid="fingerprint-filter">
          Fingerprint <code>{query.fp}</code> only ·{' '}
          <a href={href({ page: 'stalls', meta: query.meta, since: query.since, until: query.until })}>show all</a>
        </p>
      )}
      {error ? (
        <ErrorState error={error} retry={load} />
      ) : !data ? (
        <Loading what="the stall board" />
      ) : data.groups.length === 0 ? (
        <Empty>
          {!filtered ? (
            'No stall recorded yet.'
          ) : data.runsConsidered === 0 ? (
            <span data-testid="no-run-hint">No run matches these filters. {CI_KEYS_HINT}</span>
          ) : (
            'No stall in the runs these filters select.'
          )}
        </Empty>
      ) : (
        <>
          {jobs.length > 0 && <StallBoard groups={jobs} testId="stall-board" />}
          {local.length > 0 && (
            <section data-testid="local-groups">
              <h2>Runs without CI metadata</h2>
              <p className="muted">Local runs: counted apart, never into a CI job&apos;s occurrences or hang rate.</p>
              <StallBoard groups={local} testId="local-board" />
            </section>
          )}
          <p className="muted" data-testid="board-scope">
            From {data.runsConsidered} run{data.runsConsidered === 1 ? '' : 's'}
            {data.truncated ? ' (the newest; narrow the filters to reach older ones)' : ''}.
            {groupsShown(data) && ` ${groupsShown(data)}`}{' '}
            {more && (
              <a href={href({ page: 'stalls', ...more.query })} data-testid="more-groups">
                Show {more.more} more
              </a>
            )}
            {loadingMore && data && (
              <span role="status" data-testid="more-groups-loading">
                Loading {Math.min(shownGroups(query), data.groupsTotal) - data.groups.length} more…
              </span>
            )}
          </p>
        </>
      )}
    </div>
  );
}
