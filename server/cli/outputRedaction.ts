/**
 * A long-lived process given secrets (`serve`: a database URL with its
 * password, an admin token, reported runs' URLs) masks them in everything it
 * prints: each text written to stdout and stderr goes through shared/redact.ts,
 * so a log line added later in any part of the dashboard (a driver's error, a
 * 500's stack) cannot print one (docs/design.md#secrets). Texts holding neither
 * `@` nor `=` pass untouched, so the cost is one scan of each line.
 */
import { redactSecrets } from '../../shared/redact.ts';

function filter(stream: NodeJS.WriteStream): (text: string) => void {
  const raw = stream.write.bind(stream) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
  stream.write = (chunk: string | Uint8Array, ...rest: unknown[]) =>
    raw(typeof chunk === 'string' ? redactSecrets(chunk) : chunk, ...rest);
  return (text) => void raw(text);
}

let installed: { stdout: (text: string) => void } | null = null;

/**
 * Installs the mask on this process's stdout and stderr (once); returns the unmasked stdout for the one line meant
 * to show a secret: a token `serve` generated itself, which the user has no other way to learn.
 */
export function maskProcessOutput(): { stdout: (text: string) => void } {
  if (!installed) {
    filter(process.stderr);
    installed = { stdout: filter(process.stdout) };
  }
  return installed;
}
