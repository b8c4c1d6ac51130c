/** The stall board for the URL's filters: loaded again when a live run changes status or verdict. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { StallBoardReply } from '../../../shared/stalls/stallsApi.ts';
import { getStalls } from '../../api/rest.ts';
import { useAppState } from '../../hooks/services.ts';
import type { StallsQuery } from '../../state/router.ts';
import { moreOfSameBoard, stallsFilter } from '../../state/stallsView.ts';

export function useStalls(query: StallsQuery) {
  const { meta, since, until, fp, groups } = query;
  const filter = useMemo(() => stallsFilter({ meta, since, until, fp, groups }), [meta, since, until, fp, groups]);
  const [loaded, setLoaded] = useState<{ filter: typeof filter; data: StallBoardReply | null; error: unknown }>({
    filter,
    data: null,
    error: null,
  });
  // A run that starts, stalls or ends changes the board.
  const activeKey = useAppState((s) =>
    Object.values(s.active)
      .map((r) => `${r.runId}:${r.status}:${r.verdict}`)
      .join('|'),
  );
  const load = useCallback(() => {
    let current = true;
    getStalls(filter).then(
      (data) => current && setLoaded({ filter, data, error: null }),
      (error: unknown) => current && setLoaded({ filter, data: null, error }),
    );
    return () => {
      current = false;
    };
  }, [filter]);
  useEffect(load, [load, activeKey]);
  // What was loaded for another filter is not shown as this one's, but for the groups it already holds of a longer
  // board of the same filters: those stay drawn while the rest loads (`loadingMore`).
  const mine = loaded.filter === filter;
  const loadingMore = !mine && loaded.data !== null && moreOfSameBoard(loaded.filter, filter);
  return { data: mine || loadingMore ? loaded.data : null, error: mine ? loaded.error : null, loadingMore, load };
}
