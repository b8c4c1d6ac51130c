/** The shell: navigation, the connection indicator, and the page for the current route. */
import { ConnectionIndicator } from './components/ConnectionIndicator.tsx';
import { StoreBanner } from './components/StoreBanner.tsx';
import { Empty } from './components/States.tsx';
import { Suspense, use, useEffect, type ComponentType } from 'react';
import { Loading } from './components/States.tsx';
import { PageErrorBoundary } from './components/PageErrorBoundary.tsx';
import { pageModules, type PageChunk } from './pages/pageModules.ts';
import { RunsPage } from './pages/RunsPage.tsx';
import { href, type Route } from './state/router.ts';
import { useRoute } from './hooks/useRoute.ts';
import { useAllowed } from './hooks/useScope.ts';

// Split off what the first view rarely needs: the form (with the schema compiler), Compare, Stalls and the run
// page (its timeline and reducer views): the app's chunk (start.tsx) holds the shell and the Runs list only, so a cold
// load of any page fetches and parses less (docs/performance.md#cold-loads). The entry has started the current
// route's chunk already (routePreload.ts) and draws once it has arrived, so that page is drawn without suspending:
// a Suspense fallback, once shown, holds back what replaces it by React's 300 ms throttle.
function lazyPage<M, P extends object>(chunk: PageChunk<M>, pick: (m: M) => ComponentType<P>) {
  return function LazyPage(props: P) {
    const Drawn = pick(chunk.loaded() ?? use(chunk.load()));
    return <Drawn {...props} />;
  };
}
const RunPage = lazyPage(pageModules.run, (m) => m.RunPage);
const NewRunPage = lazyPage(pageModules.new, (m) => m.NewRunPage);
const ComparePage = lazyPage(pageModules.compare, (m) => m.ComparePage);
const StallsPage = lazyPage(pageModules.stalls, (m) => m.StallsPage);

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'runs':
      return <RunsPage query={route} />;
    case 'new':
      return <NewRunPage preset={route.preset} />;
    case 'run':
      return <RunPage key={route.id} id={route.id} request={route.request} stall={route.stall} only={route.only} />;
    case 'stalls':
      return <StallsPage query={route} />;
    case 'compare':
      return <ComparePage ids={route.ids} />;
    case 'notFound':
      return (
        <Empty>
          There is no page at {route.path}. <a href={href({ page: 'runs' })}>Go to the runs.</a>
        </Empty>
      );
  }
}

const TITLES = {
  runs: 'Runs',
  new: 'New run',
  run: 'Run',
  stalls: 'Stalls',
  compare: 'Compare',
  notFound: 'Not found',
} as const;

export function App() {
  const route = useRoute();
  const allowed = useAllowed();
  const title = `${TITLES[route.page]}${route.page === 'run' ? ` ${route.id}` : ''} · stallscope`;
  useEffect(() => {
    document.title = title;
  }, [title]);
  const nav = (r: Route, label: string, active: boolean) => (
    <a href={href(r)} className={active ? 'active' : ''} aria-current={active ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href={href({ page: 'runs' })}>
          stallscope
        </a>
        <nav aria-label="Main">
          {nav({ page: 'runs' }, 'Runs', route.page === 'runs' || route.page === 'run')}
          {/* Starting a run needs admin: a view token's page does not offer it. */}
          {allowed.manageRuns && nav({ page: 'new' }, 'New run', route.page === 'new')}
          {nav({ page: 'stalls' }, 'Stalls', route.page === 'stalls')}
          {nav(
            { page: 'compare', ids: route.page === 'compare' ? route.ids : [] },
            'Compare',
            route.page === 'compare',
          )}
        </nav>
        {/* The run page puts its name and verdict here once its header scrolls away. */}
        <span id="topbar-run" className="topbar-run" />
        <span className="spacer" />
        <ConnectionIndicator />
      </header>
      <StoreBanner />
      <main id="main" tabIndex={-1}>
        <PageErrorBoundary page={href(route)}>
          <Suspense fallback={<Loading what="the page" />}>
            <Page route={route} />
          </Suspense>
        </PageErrorBoundary>
      </main>
    </>
  );
}
