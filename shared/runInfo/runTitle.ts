/**
 * How a person names a run: by where it ran ("build 14607 · mi325-agent-2 ·
 * minicpmo-accuracy"), not by its generated id — the id is shown beside the
 * title, never instead of it. And the one rule for turning a stored CI build
 * URL into a link: only http and https, so a reported `javascript:` or
 * `file:` value stays text. Pure; every page and output uses these two.
 */

type Metadata = Readonly<Record<string, string | undefined>>;

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

/**
 * `url` when it is an absolute http(s) URL with a host and no whitespace or control characters, else null (shown as
 * text, never as a link). Checked by hand, not with `URL` (shared/ uses no platform globals) nor a regular
 * expression (a reported value is outside text: one linear scan).
 */
export function ciBuildHref(url: string | undefined | null): string | null {
  if (!url) return null;
  const lower = url.slice(0, 8).toLowerCase();
  const scheme = lower.startsWith('https://') ? 8 : lower.startsWith('http://') ? 7 : 0;
  if (scheme === 0 || scheme >= url.length || '/?#'.includes(url[scheme])) return null;
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x3c || c === 0x3e || c === 0x22) return null;
  }
  return url;
}
