/** Hooks that decide when a view redraws: throttled values, a ticking clock, on-screen or not. */
import { startTransition, useEffect, useRef, useState } from 'react';

/**
 * `value`, but refreshed at most every `ms`, as a transition: costly views of
 * fast-changing data (live charts) then render in slices that yield to urgent
 * updates instead of blocking the page.
 */
export function useThrottled<T>(value: T, ms: number, paused = false): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (paused) return; // e.g. off screen: catch up when it matters again
    const show = () => {
      last.current = Date.now();
      startTransition(() => setShown(value));
    };
    const wait = last.current + ms - Date.now();
    if (wait <= 0) {
      show();
      return;
    }
    const id = setTimeout(show, wait);
    return () => clearTimeout(id);
  }, [value, ms, paused]);
  return shown;
}

/** Wall-clock ms, refreshed every `everyMs` while `active` (for counting ages and elapsed time). */
export function useNow(active: boolean, everyMs = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    // The first tick at once (not after everyMs), from a timer rather than
    // synchronously in the effect, so the effect itself never sets state.
    const first = setTimeout(() => setNow(Date.now()), 0);
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => {
      clearTimeout(first);
      clearInterval(id);
    };
  }, [active, everyMs]);
  return now;
}

/** Whether an element is on screen (with a margin), so off-screen live views can skip their redraws. */
export function useInView(ref: React.RefObject<Element | null>, margin = '0px'): boolean {
  const [inView, setInView] = useState(true);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const io = new IntersectionObserver((entries) => setInView(entries.some((e) => e.isIntersecting)), {
      rootMargin: margin,
    });
    io.observe(el);
    return () => io.disconnect();
  }, [ref, margin]);
  return inView;
}
