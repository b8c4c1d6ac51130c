/** A PostgreSQL URL checked before anything connects, and shown without its password. */
import { StallscopeError } from '../../../../shared/errors.ts';
import { redactSecrets } from '../../../../shared/redact.ts';

export function isDbUrl(s: string): boolean {
  return /^postgres(ql)?:\/\//i.test(s);
}

/**
 * The URL without its password, for messages and logs: the userinfo and every credential parameter (`?password=`,
 * `?sslpassword=`) masked by the rule everything else is masked by (shared/redact.ts), so a line the process-wide
 * mask passes again reads the same.
 */
export function redactDbUrl(url: string): string {
  try {
    return redactSecrets(new URL(url).toString());
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
