/** A PostgreSQL URL checked before anything connects, and shown without its password. */
import { StallscopeError } from '../../../../shared/errors.ts';

export function isDbUrl(s: string): boolean {
  return /^postgres(ql)?:\/\//i.test(s);
}

/** The URL without its password, for messages and logs. */
export function redactDbUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

export function checkDbUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new StallscopeError('STORE_URL_INVALID', `not a URL: ${redactDbUrl(url)}`, 'database');
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    throw new StallscopeError('STORE_URL_INVALID', `expected postgres://…, got ${u.protocol}//…`, 'database');
}
