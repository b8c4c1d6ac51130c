#!/usr/bin/env node
// Entry point: runs the compiled CLI (dist/, from `npm run build`; shipped built in the package).
import { existsSync } from 'node:fs';

const main = new URL('../dist/server/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  console.error('stallscope: the compiled code is missing (dist/server): run `npm run build` in the repository first');
  process.exit(2);
}
const { main: run } = await import(main.href);
const code = await run(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
