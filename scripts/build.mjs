#!/usr/bin/env node
/**
 * `npm run build`: compiles server/ and shared/ to dist/server and dist/shared
 * (plain ES modules, one .js per .ts, external source maps pointing at the
 * .ts files) and builds the web UI to dist/web (vite build).
 *
 *   node scripts/build.mjs               build both
 *   node scripts/build.mjs --if-needed   build only what is stale (setup, tests, bench)
 *   node scripts/build.mjs --server-only leave the web UI alone
 *
 * Plain JavaScript, so it runs before anything is compiled and without tsx.
 *
 * Why esbuild and not tsc: it compiles the tree in well under a second (tsc
 * takes ~7 s of CPU, and type-checking is `npm run typecheck`'s job), so the
 * tests can afford to check for a stale dist/ on every run. Each file is its
 * own entry point with every import left external, so nothing is bundled or
 * renamed: function names in stacks stay the source's. The sources import
 * with `.ts` extensions; the plugin below rewrites relative specifiers to
 * `.js` (a same-length change, so the source maps stay exact).
 *
 * The `bench` command is also bundled, with its packages, into one module
 * (dist/server/cli/benchBundle.js), which the compiled CLI loads: the
 * module loader's resolve/open/compile of ~300 files and undici's CJS tree
 * cost a run ~0.6 s of CPU at start that one file does not (docs/design.md#first-wave).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
const STAMP = join(DIST, '.server-build');
const LOCK = join(DIST, '.build-lock');
const COMPILED = ['server', 'shared'];
/** Everything whose change makes dist/server stale: the compiled trees, the bin that runs them, this script. */
const INPUTS = [...COMPILED, 'bin', 'scripts/build.mjs', 'package.json'].map((p) => join(ROOT, p));

/** Newest modification time of a file, or of a folder and everything under it (a folder's own mtime catches deletions). */
function newestMtime(p) {
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of readdirSync(p)) newest = Math.max(newest, newestMtime(join(p, e)));
  return newest;
}

export function serverBuildNeeded() {
  if (!existsSync(STAMP)) return true;
  const built = statSync(STAMP).mtimeMs;
  return INPUTS.some((p) => existsSync(p) && newestMtime(p) > built);
}

/** Data files the compiled code reads beside itself (e.g. serverStacks/defaultPhaseRules.json). */
function assetFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...assetFiles(p));
    else if (e.name.endsWith('.json')) out.push(p);
  }
  return out;
}

function tsFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Relative `.ts` imports become `.js` imports of the sibling output; packages and node: stay as they are. */
const tsToJs = {
  name: 'ts-to-js',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/.*\.ts$/ }, (args) =>
      args.kind === 'entry-point' ? undefined : { path: args.path.replace(/\.ts$/, '.js'), external: true },
    );
    build.onResolve({ filter: /^\.\.?\// }, (args) =>
      args.kind === 'entry-point' ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * In the bundle every module's `import.meta.url` becomes its own per-file output's URL, so files it reads beside
 * itself (serverStacks/defaultPhaseRules.json) and the package root are found as from dist/server.
 */
function ownMetaUrl(bundleDir) {
  return {
    name: 'own-meta-url',
    setup(build) {
      build.onLoad({ filter: /[\\/]dist[\\/](server|shared)[\\/].*\.js$/ }, async (args) => {
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const rel = relative(bundleDir, args.path).split('\\').join('/');
        const url = `new URL(${JSON.stringify(rel.startsWith('.') ? rel : `./${rel}`)}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', url), loader: 'js' };
      });
    },
  };
}

/** What both builds share: ES modules for Node 20, maps naming the .ts files (their text stays in the repository). */
const NODE_ESM = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
};

/** The bench command and its packages in one module, built from the per-file output. */
async function bundleBench(esbuild) {
  const out = join(DIST, 'server/cli/benchBundle.js');
  await esbuild.build({
    ...NODE_ESM,
    entryPoints: [join(DIST, 'server/cli/bench.js')],
    outfile: out,
    // Native or optional: loaded from node_modules as the per-file build does.
    external: ['better-sqlite3', 'pg-native'],
    // The packages bundled in are CommonJS: their require() of node: builtins needs a require in an ES module.
    banner: {
      js: "import { createRequire as __stallscopeRequire } from 'node:module';\nconst require = __stallscopeRequire(import.meta.url);",
    },
    plugins: [ownMetaUrl(dirname(out))],
    // Whitespace and comments out (names kept, so stacks read the same; the linked map points at the sources):
    // 2.5 MB → 1.8 MB that every run decodes and parses, ~25 ms of a 1-request run's ~500 ms of CPU. The bundled
    // packages' license comments go beside it (benchBundle.js.LEGAL.txt), not into it.
    minifyWhitespace: true,
    legalComments: 'external',
  });
}

export async function buildServer() {
  const esbuild = await import('esbuild');
  for (const d of COMPILED) rmSync(join(DIST, d), { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  await esbuild.build({
    ...NODE_ESM,
    entryPoints: COMPILED.flatMap((d) => tsFiles(join(ROOT, d))),
    outbase: ROOT,
    outdir: DIST,
    packages: 'external',
    plugins: [tsToJs],
  });
  for (const src of COMPILED.flatMap((d) => assetFiles(join(ROOT, d)))) {
    const out = join(DIST, relative(ROOT, src));
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(src, out);
  }
  await bundleBench(esbuild);
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** One build at a time across processes (parallel test files, a bench next to a test run). */
function withLock(fn) {
  mkdirSync(DIST, { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      // A lock older than three minutes belongs to a build that died.
      if (Date.now() - statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs > 180_000)
        rmSync(LOCK, { force: true, recursive: true });
      if (Date.now() > deadline)
        throw new Error(`another build holds ${LOCK} for over three minutes; remove it if no build runs`, {
          cause: e,
        });
      sleep(100);
    }
  }
  return fn().finally(() => rmSync(LOCK, { recursive: true, force: true }));
}

async function main(argv) {
  const ifNeeded = argv.includes('--if-needed');
  const serverOnly = argv.includes('--server-only');
  const say = (s) => console.log(`build: ${s}`);
  await withLock(async () => {
    if (!ifNeeded || serverBuildNeeded()) {
      const t0 = performance.now();
      await buildServer();
      say(
        `server and shared compiled to ${relative(ROOT, DIST)}/ in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    } else say('dist/server up to date');
    if (serverOnly) return;
    // The web build's staleness rule and its NODE_ENV=production live in one module, used by `serve --build-if-needed` too.
    const { webBuildNeeded, buildWeb } = await import(pathToFileURL(join(DIST, 'server/cli/webBuild.js')).href);
    if (ifNeeded && !webBuildNeeded()) return say('dist/web up to date');
    say('building the web UI (vite build)');
    const r = buildWeb({ quiet: true });
    if (!r.ok) throw new Error(`vite build failed:\n${r.output}`);
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`build: ${e.message}`);
    process.exitCode = 1;
  });
}
