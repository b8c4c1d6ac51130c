/** Hooks that decide when a view redraws: throttled values and a ticking clock. */
import { startTransition, useEffect, useRef, useState } from 'react';

/**
 * `value`, but refreshed at most every `ms`, as a transition: costly views of
 * fast-changing data (live charts) then render in slices that yield to urgent
 * updates instead of blocking the page.
 */
export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
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
  }, [value, ms]);
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
