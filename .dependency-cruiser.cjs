/**
 * The import rules of ARCHITECTURE.md, enforced on the real module graph
 * (TypeScript resolution, type-only imports included).
 * @type {import('dependency-cruiser').IConfiguration}
 */
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
      name: 'web-not-server',
      severity: 'error',
      comment: 'web -> shared only; the UI reaches the server over REST and the WebSocket.',
      from: { path: '^web/' },
      to: { path: '^(server|bin|test)/' },
    },
    {
      name: 'server-not-web',
      severity: 'error',
      comment: 'server -> shared only; it serves the built UI as files, never imports it.',
      from: { path: '^(server|bin)/' },
      to: { path: '^(web|test)/' },
    },
    {
      name: 'worker-without-fastify',
      severity: 'error',
      comment: 'The Code2Wav worker threads load only the decoder: no HTTP server code in a worker.',
      from: { path: '^server/target/code2wav/(worker|kernels)/' },
      to: { path: '(^server/target/(server|routes|sse)|node_modules/(fastify|@fastify)/)' },
    },
    {
      name: 'store-below-hub',
      comment:
        'The store persists what the hub hands it: it never imports the hub, the run manager or the routes (no hub <-> store cycle).',
      severity: 'error',
      from: { path: '^server/store/' },
      to: { path: '^server/(hub|runs|routes|plugins)/' },
    },
    {
      name: 'worker-messages-internal',
      severity: 'error',
      comment: 'The main <-> worker message union is internal to the reproduction target (and its tests).',
      from: { pathNot: '^(server/target/|test/)' },
      to: { path: '^server/target/code2wav/worker/messages\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '^(dist|node_modules|\\.venv)/' },
  },
};
