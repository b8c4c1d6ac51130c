/**
 * The app's code fetched beside the entry: the entry (web/main.tsx) is only the route's first reads, and it loads
 * the app (web/start.tsx: React, the shell) with a dynamic import, so its data requests never wait for React. Vite
 * names only the entry's static imports in index.html; this adds a `modulepreload` for the app's chunk and every chunk
 * it imports, so the browser fetches (and compiles) them while the entry is still arriving, not a round trip after it
 * runs (docs/performance.md#cold-loads).
 */
import type { HtmlTagDescriptor, Plugin, Rollup } from 'vite';

type OutputBundle = Rollup.OutputBundle;
type OutputChunk = Rollup.OutputChunk;

/** The chunks the module `facade` loads: the one holding it and, depth first, every chunk it statically imports. */
function chunkClosure(bundle: OutputBundle, facade: RegExp): string[] {
  const chunks = Object.values(bundle).filter((c): c is OutputChunk => c.type === 'chunk');
  // The chunk holding the module: its own (its facade), or one it was grouped into.
  const start = chunks.find((c) => c.moduleIds.some((id) => facade.test(id)));
  if (!start) throw new Error(`no chunk of the bundle is built from ${facade}`);
  const byName = new Map(chunks.map((c) => [c.fileName, c]));
  const seen = new Set<string>();
  const visit = (c: OutputChunk) => {
    if (seen.has(c.fileName)) return;
    seen.add(c.fileName);
    for (const name of c.imports) {
      const dep = byName.get(name);
      if (dep) visit(dep);
    }
  };
  visit(start);
  return [...seen];
}

/** The Vite plugin: index.html preloads the chunks of the module matching `facade` (web/start.tsx). */
export function preloadApp(facade: RegExp): Plugin {
  return {
    name: 'stallscope-preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx): HtmlTagDescriptor[] {
        if (!ctx.bundle) return [];
        // A file the page names already (the entry's own script, Vite's preloads of its imports) is not named twice.
        return chunkClosure(ctx.bundle, facade)
          .filter((file) => !html.includes(`/${file}"`))
          .map((file) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` },
            injectTo: 'head',
          }));
      },
    },
  };
}
