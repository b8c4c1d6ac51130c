/**
 * Which request of the run is open, which row the timeline scrolls to, which
 * it highlights and which it shows. A link to another request (`?req=N`,
 * Back) selects it; selecting one puts it in the URL. A story link to a range
 * (`?reqs=5-8`) is a new history entry that shows those requests alone, so
 * the view can be shared and Back returns to all of them.
 */
import { useMemo, useState } from 'react';
import { navigate, replaceRoute } from '../../state/router.ts';
import type { RunModel } from '../../../shared/runView/runModel.ts';

export function useRequestSelection(
  id: string,
  request: number | undefined,
  model: RunModel | undefined,
  only?: readonly number[],
) {
  const [selected, setSelected] = useState<number | null>(request ?? null);
  const [scrollTo, setScrollTo] = useState<number | null>(request ?? null);
  const [found, setFound] = useState<ReadonlySet<string> | undefined>(undefined);
  // Bumped whenever a link or a find (not a click or an arrow key) opens a request: its panel is then
  // aligned below the top bar, wherever the page was scrolled.
  const [linkSeq, setLinkSeq] = useState(request !== undefined ? 1 : 0);

  const [linked, setLinked] = useState(request);
  if (request !== linked) {
    setLinked(request);
    if (request !== undefined) {
      setSelected(request);
      setScrollTo(request);
      setLinkSeq((n) => n + 1);
    }
  }
  const onlyIds = useMemo(
    () => (only ? new Set(only.map((i) => model?.requests[i]?.requestId).filter((x): x is string => !!x)) : undefined),
    [only, model?.requests],
  );
  const select = (i: number | null) => {
    setSelected(i);
    // The route will say this request: not a new link to follow (that would scroll the timeline to it again).
    setLinked(i ?? undefined);
    // Replace, not push: arrowing through requests must not fill the history.
    replaceRoute({ page: 'run', id, ...(i !== null ? { request: i } : {}), ...(only ? { only: [...only] } : {}) });
  };
  /** Open a request by id, scroll the timeline to it and highlight it. */
  const findRequest = (rid: string) => {
    const i = model?.indexById[rid];
    if (i === undefined) return;
    select(i);
    setScrollTo(i);
    setLinkSeq((n) => n + 1);
    setFound(new Set([rid]));
  };
  /** Show these requests (one: open and highlight it among all of them; several: only them, the first open). */
  const findRequests = (indices: readonly number[]) => {
    if (indices.length === 0) return;
    const one = indices.length === 1 ? model?.requests[indices[0]]?.requestId : undefined;
    setFound(one ? new Set([one]) : undefined);
    setScrollTo(indices[0]);
    navigate({ page: 'run', id, request: indices[0], ...(indices.length > 1 ? { only: [...indices] } : {}) });
  };
  /** Back to every request, the open one kept. */
  const showAll = () => navigate({ page: 'run', id, ...(selected !== null ? { request: selected } : {}) });
  return { selected, scrollTo, linkSeq, highlight: onlyIds ?? found, select, findRequest, findRequests, showAll };
}
