/**
 * How a person names a run: by where it ran ("build 14607 · mi325-agent-2 ·
 * minicpmo-accuracy"), not by its generated id — the id is shown beside the
 * title, never instead of it. And the one rule for turning a stored CI build
 * URL into a link: only http and https, so a reported `javascript:` or
 * `file:` value stays text. Pure; every page and output uses these two.
 */

type Metadata = Readonly<Record<string, string | undefined>>;

/** The WHATWG URL parser, a global in Node and browsers alike (shared/ is compiled with neither's types). */
declare const URL: new (input: string) => { protocol: string; href: string };

/** The run's title from its CI metadata, or null for a run with none (a local run is titled by its id). */
export function runTitle(metadata: Metadata | undefined): string | null {
  if (!metadata) return null;
  const parts = [
    metadata.ci_build ? `build ${metadata.ci_build}` : null,
    metadata.ci_node ?? null,
    metadata.ci_step ?? metadata.ci_job ?? null,
  ].filter((p): p is string => Boolean(p));
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** `url` when it is an absolute http(s) URL, else null (shown as text, never as a link). */
export function ciBuildHref(url: string | undefined | null): string | null {
  if (!url) return null;
  let parsed: { protocol: string; href: string };
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
}
