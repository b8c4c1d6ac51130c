/**
 * Maps a generated (line, column) of a worker's script back to the original
 * TypeScript position, with Node's own source-map parser (`module.SourceMap`).
 * The maps come from the build (dist/**.js.map beside each compiled file,
 * named by the script's `sourceMappingURL`) or inline (`data:` URLs). The
 * frames are captured from another thread over the inspector, so
 * `module.findSourceMap` (this thread's module cache) cannot know them: the
 * map is read once per script and kept. Without a map the generated position
 * is kept as it is.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface SourceMapIndex {
  map: SourceMap;
  /** URL the map's `sources` are relative to (its own, or the script's for an inline map). */
  base: string;
}

function readPayload(url: string): SourceMapPayload {
  if (url.startsWith('data:')) {
    const comma = url.indexOf(',');
    const payload = url.slice(comma + 1);
    const text = url.slice(5, comma).includes('base64')
      ? Buffer.from(payload, 'base64').toString('utf8')
      : decodeURIComponent(payload);
    return JSON.parse(text) as SourceMapPayload;
  }
  return JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as SourceMapPayload;
}

/** Loads the map a script names (relative to the script, a file: or data: URL); null when there is none or it is unreadable. */
export function loadSourceMap(sourceMapUrl: string | undefined, scriptUrl: string): SourceMapIndex | null {
  if (!sourceMapUrl) return null;
  try {
    const url = sourceMapUrl.startsWith('data:') ? sourceMapUrl : new URL(sourceMapUrl, scriptUrl).href;
    if (!url.startsWith('data:') && !url.startsWith('file:')) return null;
    return { map: new SourceMap(readPayload(url)), base: url.startsWith('data:') ? scriptUrl : url };
  } catch {
    return null;
  }
}

/** Original position (1-based line and column, absolute file path) for a 0-based generated line and column, or null when unmapped. */
export function originalPosition(
  index: SourceMapIndex,
  line: number,
  column: number,
): { file: string; line: number; column: number } | null {
  const e = index.map.findEntry(line, column);
  if (!('originalSource' in e) || e.originalSource === undefined) return null;
  const source = new URL((index.map.payload.sourceRoot ?? '') + e.originalSource, index.base).href;
  return {
    file: source.startsWith('file:') ? fileURLToPath(source) : source,
    line: e.originalLine + 1,
    column: e.originalColumn + 1,
  };
}
