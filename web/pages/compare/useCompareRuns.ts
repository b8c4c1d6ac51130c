/** The runs being compared, loaded for the current set of ids (the picker searches for more: AddRunPicker). */
import { useEffect, useState } from 'react';
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import { ApiError, getRun } from '../../api/rest.ts';

/** A compared id with no run behind it: named on the page, not reported as "something went wrong". */
export class MissingRun extends Error {
  constructor(readonly id: string) {
    super(`No run with id ${id}`);
  }
}

export function useCompareRuns(ids: string[]) {
  const key = ids.join(',');
  // What was loaded for which set of ids: a new set shows "loading" until its own reply lands.
  const [loaded, setLoaded] = useState<{ key: string; runs: RunDetail[] | null; error: unknown }>({
    key: '',
    runs: null,
    error: null,
  });
  const runs = loaded.key === key ? loaded.runs : null;
  const error = loaded.key === key ? loaded.error : null;

  useEffect(() => {
    let current = true;
    // A missing run is named, not reported as "something went wrong".
    const one = (id: string) =>
      getRun(id).catch((e: unknown) => {
        throw e instanceof ApiError && e.status === 404 ? new MissingRun(id) : e;
      });
    Promise.all(ids.map(one)).then(
      (r) => current && setLoaded({ key, runs: r, error: null }),
      (e: unknown) => current && setLoaded({ key, runs: null, error: e }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  return { runs, error };
}
