/** CDP call frames → stallscope stack frames, mapped back to the TypeScript sources. */
import { fileURLToPath } from 'node:url';
import type { StackFrame } from '../../../shared/types.ts';
import { capFile, capFunction } from '../../../shared/stalls/frameText.ts';
import { loadSourceMap, originalPosition, type SourceMapIndex } from './sourceMap.ts';

export interface CdpFrame {
  functionName: string;
  location: { scriptId: string; lineNumber: number; columnNumber?: number };
  url?: string;
}

export interface ScriptInfo {
  url: string;
  sourceMapURL?: string;
}

function toFile(url: string): string {
  if (url.startsWith('data:')) return '<inline script>';
  if (url.startsWith('file:')) {
    try {
      return fileURLToPath(url);
    } catch {
      return url;
    }
  }
  return url;
}

export function toFrame(
  f: CdpFrame,
  script: ScriptInfo | undefined,
  maps: Map<string, SourceMapIndex | null>,
): StackFrame {
  const url = script?.url || f.url || '';
  // Cut as the report schema bounds them (a generated function's name can be any length).
  const frame: StackFrame = {
    function: capFunction(f.functionName || '(anonymous)'),
    file: capFile(toFile(url)),
    line: f.location.lineNumber + 1,
    column: (f.location.columnNumber ?? 0) + 1,
    language: 'js',
  };
  if (!script?.sourceMapURL) return frame;
  if (!maps.has(url)) maps.set(url, loadSourceMap(script.sourceMapURL, url));
  const map = maps.get(url);
  const pos = map ? originalPosition(map, f.location.lineNumber, f.location.columnNumber ?? 0) : null;
  return pos ? { ...frame, file: capFile(pos.file) || frame.file, line: pos.line, column: pos.column } : frame;
}
