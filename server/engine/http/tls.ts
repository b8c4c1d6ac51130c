/**
 * TLS for https targets. `--insecure` (ours; vLLM has no such flag) turns off
 * certificate checks so a CI server with a self-signed certificate can be
 * benchmarked; without it a certificate error fails each request with a
 * message that says what happened and names the flag.
 */
import type { BenchConfig } from '../config.ts';

/** TLS options for the run's connections (dispatcher.ts); undefined = Node's defaults (checks on). */
export function tlsOptions(config: {
  target: Pick<BenchConfig['target'], 'insecure'>;
}): { rejectUnauthorized: false } | undefined {
  return config.target.insecure ? { rejectUnauthorized: false } : undefined;
}

/** OpenSSL's certificate verification codes as Node reports them (`err.code`). */
const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The hint added to a request's error when the target's certificate was refused, else null. */
export function certificateHint(code: string | null): string | null {
  if (code === null || !CERT_CODES.has(code)) return null;
  return "the target's TLS certificate was not accepted; --insecure skips certificate checks (self-signed CI servers)";
}
