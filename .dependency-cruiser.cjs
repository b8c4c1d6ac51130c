/**
 * The import rules of ARCHITECTURE.md, enforced on the real module graph
 * (TypeScript resolution, type-only imports included).
 *
 * Each program says what it may import, as an allow-list in the spirit of
 * Playwright's per-folder DEPS.list: a rule forbids everything outside the
 * list (`pathNot`), so a new folder is refused until someone writes it down.
 * `test/architecture/importRules.test.ts` breaks every rule once and sees it fire.
 * @type {import('dependency-cruiser').IConfiguration}
 */

/** What every program may use: the contracts and pure rules, the Node helpers of server/common, packages. */
const BASE = ['shared/', 'server/common/', 'node_modules/'];
/** `pathNot` for "anything but these folders". */
const only = (...folders) => `^(${[...BASE, ...folders].join('|')})`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles anywhere: a cycle makes load order (and so behaviour) depend on who imports first.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      scope: 'folder',
      comment:
        'No cycles between folders either (engine -> probe -> engine): the file-level rule cannot see two folders that import each other through different files. ' +
        "dependency-cruiser's folder scope counts a subfolder's files as its parent's, so it cannot see a folder <-> subfolder loop: scripts/folderLoops.ts (run by `npm run lint`) checks those.",
      from: { path: '^(server|shared|web)/' },
      to: { circular: true },
    },
    {
      name: 'shared-is-self-contained',
      severity: 'error',
      comment: 'shared/ holds the contracts and pure rules used by both sides: it imports only shared/ and packages.',
      from: { path: '^shared/' },
      to: { pathNot: '^(shared/|node_modules/)', dependencyTypesNot: ['core'] },
    },
    {
      name: 'shared-no-node-builtins',
      severity: 'error',
      comment: 'shared/ also runs in the browser: no node: modules.',
      from: { path: '^shared/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'web-only-shared',
      severity: 'error',
      comment: 'web -> shared only; the UI reaches the server over REST and the WebSocket.',
      from: { path: '^web/' },
      to: { pathNot: '^(web/|shared/|node_modules/)' },
    },
    {
      name: 'common-only-shared',
      severity: 'error',
      comment: 'server/common holds Node helpers every program may use (where the package is): it imports no program.',
      from: { path: '^server/common/' },
      to: { pathNot: only(), dependencyTypesNot: ['core'] },
    },
    {
      name: 'engine-allow-list',
      severity: 'error',
      comment:
        'The engine (load generator) imports neither the dashboard, the reproduction server nor the CLI: it runs alone in `stallscope bench`.',
      from: { path: '^server/engine/' },
      to: { pathNot: only('server/engine/'), dependencyTypesNot: ['core'] },
    },
    {
      name: 'engine-core-no-probes',
      severity: 'error',
      comment:
        'Probes are plug-ins: the engine core takes them in EngineOptions and imports none; the CLI and the run manager build them.',
      from: { path: '^server/engine/', pathNot: '^server/engine/probes/' },
      to: { path: '^server/engine/probes/' },
    },
    {
      name: 'transport-owns-the-network',
      severity: 'error',
      comment:
        'One network seam in the engine: only server/engine/transport/ imports undici, ws, node:net, node:tls, node:http or node:https (type-only and dynamic imports included).',
      from: { path: '^server/engine/', pathNot: '^server/engine/transport/' },
      to: { path: '(^(net|tls|http|https|undici|ws)$|(^|/)node_modules/(undici|ws)/)' },
    },
    {
      name: 'engine-through-the-seam',
      severity: 'error',
      comment:
        "The rest of the engine reaches transport/ through its seam: index.ts (the hot path) or simpleClient.ts (off it). validate.ts takes h1's header check alone, so validating a config loads no client.",
      from: { path: '^server/engine/', pathNot: '^server/engine/transport/' },
      to: {
        path: '^server/engine/transport/',
        pathNot: '^server/engine/transport/(index|simpleClient|h1/requestHead)\\.ts$',
      },
    },
    {
      name: 'repro-allow-list',
      severity: 'error',
      comment:
        'The reproduction server imports neither the engine, the dashboard nor the CLI: it is the peer under test.',
      from: { path: '^server/repro/' },
      to: { pathNot: only('server/repro/'), dependencyTypesNot: ['core'] },
    },
    {
      name: 'dashboard-allow-list',
      severity: 'error',
      comment:
        'The dashboard imports neither the reproduction server (it starts it as a process) nor the CLI; only its run manager (server/dashboard/runs/) reaches the engine.',
      from: { path: '^server/dashboard/', pathNot: '^server/dashboard/runs/' },
      to: { pathNot: only('server/dashboard/'), dependencyTypesNot: ['core'] },
    },
    {
      name: 'dashboard-runs-allow-list',
      severity: 'error',
      comment:
        'The run manager drives the engine and the rest of the dashboard; never the reproduction server or the CLI.',
      from: { path: '^server/dashboard/runs/' },
      to: { pathNot: only('server/dashboard/', 'server/engine/'), dependencyTypesNot: ['core'] },
    },
    {
      name: 'cli-allow-list',
      severity: 'error',
      comment: 'The CLI may import all three programs; nothing outside server/ and shared/.',
      from: { path: '^server/cli/' },
      to: { pathNot: only('server/'), dependencyTypesNot: ['core'] },
    },
    {
      name: 'bin-only-dist',
      severity: 'error',
      comment: 'bin/ starts the compiled CLI and imports no source.',
      from: { path: '^bin/' },
      to: { path: '^(server|shared|web|test)/' },
    },
    {
      name: 'worker-without-fastify',
      severity: 'error',
      comment: 'The Code2Wav worker threads load only the decoder: no HTTP server code in a worker.',
      from: { path: '^server/repro/code2wav/(worker|kernels)/' },
      to: { path: '(^server/repro/(server|routes)|node_modules/(fastify|@fastify)/)' },
    },
    {
      name: 'store-below-hub',
      comment:
        'The store persists what the hub hands it: it never imports the hub, the run manager or the routes (no hub <-> store cycle).',
      severity: 'error',
      from: { path: '^server/dashboard/store/' },
      to: { path: '^server/dashboard/(hub|runs|routes|plugins)/' },
    },
    {
      name: 'sqlite-driver-in-sqlite-store',
      severity: 'error',
      comment:
        'Only the SQLite store (server/dashboard/store/sqlite/) loads better-sqlite3: the rest talks to the store by role.',
      from: { path: '^(server|shared|web|bin|scripts)/', pathNot: '^server/dashboard/store/sqlite/' },
      to: { path: '^node_modules/(@types/)?better-sqlite3/' },
    },
    {
      name: 'pg-driver-in-pg-store',
      severity: 'error',
      comment: 'Only the PostgreSQL store (server/dashboard/store/pg/) loads pg: the embedded default never does.',
      from: { path: '^(server|shared|web|bin|scripts)/', pathNot: '^server/dashboard/store/pg/' },
      to: { path: '^node_modules/(@types/)?pg/' },
    },
    {
      name: 'stores-apart',
      severity: 'error',
      comment:
        'The SQLite and PostgreSQL stores never import each other: what both use lives in server/dashboard/store/common/.',
      from: { path: '^server/dashboard/store/(sqlite|pg)/' },
      to: { path: '^server/dashboard/store/(sqlite|pg)/', pathNot: '^server/dashboard/store/$1/' },
    },
    {
      name: 'worker-messages-internal',
      severity: 'error',
      comment: 'The main <-> worker message union is internal to the reproduction server (and its tests).',
      from: { pathNot: '^(server/repro/|test/)' },
      to: { path: '^server/repro/code2wav/worker/messages\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    // Packages are left out of the graph, but the database drivers: the store's rules name them.
    exclude: { path: '^(dist|\\.venv)/|^node_modules/(?!(@types/)?(better-sqlite3|pg)/)' },
  },
};
