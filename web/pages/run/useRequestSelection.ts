/**
 * Which request of the run is open, which row the timeline scrolls to and
 * which it highlights. A link to another request (`?req=N`, Back) selects it;
 * selecting one puts it in the URL.
 */
import { useState } from 'react';
import { href } from '../../state/router.ts';
import type { RunModel } from '../../../shared/runView/runModel.ts';

export function useRequestSelection(id: string, request: number | undefined, model: RunModel | undefined) {
  const [selected, setSelected] = useState<number | null>(request ?? null);
  const [scrollTo, setScrollTo] = useState<number | null>(request ?? null);
  const [highlight, setHighlight] = useState<ReadonlySet<string> | undefined>(undefined);

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
  /** Open a request by id, scroll the timeline to it and highlight it. */
  const findRequest = (rid: string) => {
    const i = model?.indexById[rid];
    if (i === undefined) return;
    select(i);
    setScrollTo(i);
    setHighlight(new Set([rid]));
  };
  /** Open the first of these requests and highlight them all. */
  const findRequests = (indices: readonly number[]) => {
    const ids = indices.map((i) => model?.requests[i]?.requestId).filter((x): x is string => !!x);
    if (ids.length === 0) return;
    findRequest(ids[0]);
    setHighlight(new Set(ids));
  };
  return { selected, scrollTo, highlight, select, findRequest, findRequests };
}
