// `node --import tsx --import ./test/perf/useDist.mjs bench.ts`: see distHooks.mjs.
import { register } from 'node:module';

register('./distHooks.mjs', import.meta.url);
// tsx turns source-mapped stack formatting on for the whole process; the bin runs without it (each
// Error.stack would cost a source-map lookup), so the benchmarks do too.
process.setSourceMapsEnabled(false);
