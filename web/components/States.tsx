/** Shared empty, loading and error states, so every page says what is going on. */
import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }) {
  return (
    <div className="state state-loading" role="status">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </div>
  );
}

/** `context`: what could not be done, said before the error's own message ("This page could not be drawn: …"). */
export function ErrorState({ error, retry, context }: { error: unknown; retry?: () => void; context?: string }) {
  const own = error instanceof Error ? error.message : String(error);
  const msg = context ? `${context}: ${own}` : own;
  return (
    <div className="state state-error" role="alert">
      <strong>Something went wrong.</strong> {msg}
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state state-empty">{children}</div>;
}
