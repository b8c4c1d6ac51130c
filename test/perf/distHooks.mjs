/**
 * Module hooks for `npm run bench`: every import of a server/ or shared/
 * TypeScript module is served from its compiled twin in dist/, untouched by
 * tsx, so the benchmarks time the code the bin runs (tsx's transform adds
 * keepNames wrappers and source-map support that the shipped code has not).
 * The benchmark files and test helpers themselves still run under tsx.
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('../../', import.meta.url).href;
const SOURCES = [`${ROOT}server/`, `${ROOT}shared/`];
// STALLSCOPE_BENCH_DIST=<folder> times another build (a copy of dist/ from before a change) against this one.
const DIST = process.env.STALLSCOPE_BENCH_DIST
  ? pathToFileURL(`${process.env.STALLSCOPE_BENCH_DIST}/`).href
  : `${ROOT}dist/`;

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.endsWith('.ts') && SOURCES.some((s) => r.url.startsWith(s)))
    return {
      url: `${DIST}${r.url.slice(ROOT.length).replace(/\.ts$/, '.js')}`,
      format: 'module',
      shortCircuit: true,
    };
  return r;
}

export async function load(url, context, next) {
  if (url.startsWith(DIST) && url.endsWith('.js'))
    return { format: 'module', source: await readFile(new URL(url)), shortCircuit: true };
  return next(url, context);
}
