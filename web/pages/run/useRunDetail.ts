/**
 * Loads a run into the store (its detail, then its events, then a live
 * subscription while it runs) and keeps its detail: read again when a
 * watched run ends, since summary, error and stored stall reports are final
 * then.
 */
import { useEffect, useState } from 'react';
import type { RunDetail } from '../../../shared/apiSchemas.ts';
import { getRun } from '../../api/rest.ts';
import { loadRun } from '../../api/runLoader.ts';
import { useServices } from '../../hooks/services.ts';
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
  return { detail, error, loaded, retry };
}
