/** A text input that mirrors one parameter of the page's URL. */
import { useEffect, useRef, useState } from 'react';

/** How long typing pauses before the text goes into the URL. */
const PAUSE_MS = 250;

/**
 * The input's text for `urlValue` (the parameter as the URL has it) and its
 * setter. Typed text is committed after a pause, so typing fires no request
 * (nor a history entry) per key; Back, forward or a pasted link put the URL's
 * value back into the input. `trim`: spaces around the text are not part of
 * the value (metadata pairs), as an empty text is none.
 */
export function useUrlText(
  urlValue: string | undefined,
  commit: (value: string | undefined) => void,
  trim = false,
): [string, (text: string) => void] {
  const [text, setText] = useState(urlValue ?? '');
  const [shown, setShown] = useState(urlValue);
  if (shown !== urlValue) {
    setShown(urlValue);
    setText(urlValue ?? '');
  }
  // The latest render's commit: another field of the same URL may have been committed while this one's
  // pause ran, and a commit built before that would put that field's old value back.
  const latest = useRef(commit);
  useEffect(() => {
    latest.current = commit;
  });
  const value = (trim ? text.trim() : text) || undefined;
  useEffect(() => {
    if (value === urlValue) return;
    const id = setTimeout(() => latest.current(value), PAUSE_MS);
    return () => clearTimeout(id);
  }, [value, urlValue]);
  return [text, setText];
}
