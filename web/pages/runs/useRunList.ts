/**
 * One page of saved runs for a filter: loaded again when a live run changes
 * status or verdict, and every few seconds while a listed run is running.
 */
import { useCallback, useEffect, useState } from 'react';
import type { RunListReply } from '../../../shared/protocol/apiSchemas.ts';
import { listRuns, type RunFilter } from '../../api/rest.ts';
import { useAppState } from '../../hooks/services.ts';

export function useRunList(filter: RunFilter) {
  const [data, setData] = useState<RunListReply | null>(null);
  const [error, setError] = useState<unknown>(null);
  // A change in any active run's status or verdict is a reason to reload the list.
  const activeKey = useAppState((s) =>
    Object.values(s.active)
      .map((r) => `${r.runId}:${r.status}:${r.verdict}`)
      .join('|'),
  );

  const load = useCallback(() => {
    listRuns(filter).then((d) => {
      setError(null);
      setData(d);
    }, setError);
  }, [filter]);
  useEffect(load, [load, activeKey]);
  // Counts of runs still going change without the active set changing: refresh them every few seconds.
  const anyRunning = data?.runs.some((r) => r.status === 'running') ?? false;
  useEffect(() => {
    if (!anyRunning) return;
    const id = setInterval(() => void listRuns(filter).then(setData, () => {}), 3000);
    return () => clearInterval(id);
  }, [anyRunning, filter]);

  return { data, error, setError, load };
}
