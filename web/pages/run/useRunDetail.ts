/**
 * Loads a run into the store (its detail, then its events, then a live
 * subscription while it runs) and keeps its detail: read again when a
 * watched run ends, since summary, error and stored stall reports are final
 * then.
 */
import { useEffect, useState } from 'react';
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import { ApiError, getRun } from '../../api/rest.ts';
import { loadRun } from '../../api/runLoader.ts';
import { useAppState, useServices } from '../../hooks/services.ts';
import type { RunModel } from '../../../shared/runView/runModel.ts';

export function useRunDetail(id: string, model: RunModel | undefined) {
  const svc = useServices();
  const [detail, setDetail] = useState<RunDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    return loadRun(svc, id, { onDetail: setDetail, onError: setError, onLoaded: () => setLoaded(true) });
  }, [svc, id, attempt]);

  // When a watched run ends, read its detail again: summary, error and stored stall reports are final now.
  const ended = model !== undefined && model.status !== 'running' && model.status !== 'unknown';
  useEffect(() => {
    if (ended && detail?.status === 'running') getRun(id).then(setDetail, () => {});
  }, [ended, detail?.status, id]);

  const retry = () => {
    setError(null);
    setLoaded(false);
    setAttempt((a) => a + 1);
  };
  useAppearance(id, error, retry);
  return { detail, error, loaded, retry };
}

/** How often a page for a run that does not exist yet asks again (a run created and ended between two snapshots). */
const ABSENT_POLL_MS = 2000;

/**
 * A link to a run opened before the run exists (a CI log's link clicked while
 * its CLI is still starting) is no dead end: the page loads the run as soon
 * as the live snapshot lists it, or a later read finds it.
 */
function useAppearance(id: string, error: unknown, retry: () => void): void {
  const absent = error instanceof ApiError && error.status === 404;
  const listed = useAppState((s) => s.active[id] !== undefined);
  useEffect(() => {
    if (!absent) return;
    if (listed) return retry();
    let stopped = false;
    const timer = setInterval(() => {
      getRun(id).then(
        () => !stopped && retry(),
        () => {},
      );
    }, ABSENT_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [absent, listed, id]);
}
