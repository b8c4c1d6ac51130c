/**
 * What the page's token may do (web/api/session.ts): every action is hidden until the scope is known, so a view
 * token's page never shows a button that would 403.
 */
import { useSyncExternalStore } from 'react';
import { scopeMay } from '../../shared/protocol/tokens.ts';
import { getSession, subscribeSession } from '../api/session.ts';

export interface Allowed {
  /** The scope is known (false while asking, or when the dashboard refused the token). */
  known: boolean;
  /** Start, cancel, abandon, pin and delete runs (admin). */
  manageRuns: boolean;
  /** Import result files (report or admin). */
  importResults: boolean;
}

export function useAllowed(): Allowed {
  const s = useSyncExternalStore(subscribeSession, getSession);
  if (s.state !== 'known') return { known: false, manageRuns: false, importResults: false };
  const scope = s.session.scope;
  return { known: true, manageRuns: scopeMay.manageRuns(scope), importResults: scopeMay.importResults(scope) };
}
