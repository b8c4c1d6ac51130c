/**
 * The web build's compressed copies: beside every script, style sheet and page Vite writes to dist/web, a `.br`
 * (brotli, quality 11) and a `.gz` (gzip, level 9), so the dashboard sends them as they are (@fastify/static's
 * `preCompressed`) instead of compressing per request on its event loop. Done once, at build time, where the
 * slowest setting costs nothing a viewer waits for (docs/performance.md#cold-loads: the entry 249 → ~70 KB).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** What is worth compressing: text. Images and fonts Vite emits are compressed formats already. */
const TEXT = /\.(?:js|mjs|css|html|svg|json|txt)$/;
/** Below this a compressed copy saves less than its headers and a second file read cost. */
const MIN_BYTES = 1024;

/** The compressed copies of one file: `.br` and `.gz`, each only when it is smaller than the file. */
function compressFile(path: string): void {
  const raw = readFileSync(path);
  if (raw.length < MIN_BYTES) return;
  const br = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  if (br.length < raw.length) writeFileSync(`${path}.br`, br);
  const gz = gzipSync(raw, { level: 9 });
  if (gz.length < raw.length) writeFileSync(`${path}.gz`, gz);
}

/** The Vite plugin: after the bundle is written, its text files get their compressed copies. */
export function precompress(): Plugin {
  return {
    name: 'stallscope-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir) return;
      for (const name of Object.keys(bundle)) if (TEXT.test(name)) compressFile(join(dir, name));
    },
  };
}
