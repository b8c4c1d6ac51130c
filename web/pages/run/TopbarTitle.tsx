/**
 * The run's name and verdict in the sticky top bar once the run header has
 * scrolled under it: a deep link to a request (`?req=5`) lands on the
 * timeline, far below the header, and the page must still say which run and
 * how it ended.
 */
import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { StatusBadge } from '../../components/StatusBadge.tsx';

/** The top bar's slot for it (web/App.tsx). */
export const TOPBAR_SLOT = 'topbar-run';

export function TopbarTitle({ name, verdict, status }: { name: string; verdict: string | null; status: string }) {
  const [hidden, setHidden] = useState(false);
  const [slot, setSlot] = useState<HTMLElement | null>(null);
  useEffect(() => {
    const title = document.querySelector('.run-title');
    const bar = document.querySelector('.topbar');
    if (!title) return;
    // The title counts as hidden once it is under the bar, not only once it leaves the window.
    const io = new IntersectionObserver(
      ([e]) => {
        setSlot(document.getElementById(TOPBAR_SLOT));
        setHidden(!e.isIntersecting);
      },
      {
        rootMargin: `-${Math.round(bar?.getBoundingClientRect().height ?? 0)}px 0px 0px 0px`,
      },
    );
    io.observe(title);
    return () => io.disconnect();
  }, []);
  if (!slot || !hidden) return null;
  return createPortal(
    <span className="topbar-title" data-testid="topbar-run">
      <strong>{name}</strong> <StatusBadge verdict={verdict} status={status} />
    </span>,
    slot,
  );
}
