/**
 * Maps a generated (line, column) back to the original TypeScript position
 * with the script's inline source map. tsx compiles each module with one, so
 * a captured frame can name the line a maintainer would open; without a map
 * the generated position is kept as it is.
 */
import { fileURLToPath } from 'node:url';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));

type Segment = [genCol: number, src: number, line: number, col: number];

export interface SourceMapIndex {
  sources: string[];
  lines: Segment[][];
}

function decodeVlq(text: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of text) {
    const digit = B64_INDEX.get(ch);
    if (digit === undefined) break;
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

/** Parses a `data:` source-map URL; null for anything else or anything malformed. */
export function parseInlineSourceMap(url: string | undefined, scriptUrl: string): SourceMapIndex | null {
  if (!url?.startsWith('data:')) return null;
  try {
    const comma = url.indexOf(',');
    const meta = url.slice(5, comma);
    const payload = url.slice(comma + 1);
    const json = meta.includes('base64')
      ? Buffer.from(payload, 'base64').toString('utf8')
      : decodeURIComponent(payload);
    const map = JSON.parse(json) as { sources: string[]; sourceRoot?: string; mappings: string };
    const sources = map.sources.map((s) => {
      const abs = new URL((map.sourceRoot ?? '') + s, scriptUrl).href;
      return abs.startsWith('file:') ? fileURLToPath(abs) : abs;
    });
    const lines: Segment[][] = [];
    let src = 0,
      line = 0,
      col = 0;
    for (const group of map.mappings.split(';')) {
      const segs: Segment[] = [];
      let genCol = 0;
      for (const part of group.split(',')) {
        if (!part) continue;
        const v = decodeVlq(part);
        genCol += v[0];
        if (v.length >= 4) {
          src += v[1];
          line += v[2];
          col += v[3];
          segs.push([genCol, src, line, col]);
        }
      }
      lines.push(segs);
    }
    return { sources, lines };
  } catch {
    return null;
  }
}

/** Original position for a 0-based generated line and column, or null when unmapped. */
export function originalPosition(
  map: SourceMapIndex,
  line: number,
  column: number,
): { file: string; line: number; column: number } | null {
  const segs = map.lines[line];
  if (!segs || segs.length === 0) return null;
  let best: Segment | null = null;
  for (const s of segs) {
    if (s[0] > column) break;
    best = s;
  }
  best ??= segs[0];
  return { file: map.sources[best[1]] ?? '', line: best[2] + 1, column: best[3] + 1 };
}
