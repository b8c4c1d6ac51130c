/**
 * Where a run ran, from its CI metadata (shared/runInfo/ciMetadata.ts): the build — a link to the CI's page when its
 * URL is http(s) (`ciBuildHref`), text otherwise — node, commit (a prefix, the full one in its title) and step, each
 * on one line; then its other metadata. The Runs list, the run page and Compare show the same.
 */
import { ciBuildHref } from '../../shared/runInfo/runTitle.ts';
import { shortCommit } from '../state/runName.ts';

/** Keys this shows by name; the rest are listed as `key=value`. */
const SHOWN = new Set(['ci_build', 'ci_build_url', 'ci_node', 'ci_commit', 'ci_step', 'ci_provider']);

export function BuildLink({ metadata }: { metadata: Readonly<Record<string, string | undefined>> }) {
  const build = metadata.ci_build;
  const url = ciBuildHref(metadata.ci_build_url);
  if (!build && !url) return null;
  const text = build ? `build ${build}` : 'build';
  return url ? (
    <a href={url} target="_blank" rel="noopener noreferrer" data-testid="ci-build-link" title={url}>
      {text}
    </a>
  ) : (
    <span>{text}</span>
  );
}

/** A commit as people read it: a 12-hex prefix, the full one in its title; on one line. */
export function Commit({ commit, className = '', testId }: { commit: string; className?: string; testId?: string }) {
  return (
    <code className={`${className} nowrap`.trim()} data-testid={testId} title={commit}>
      {shortCommit(commit)}
    </code>
  );
}

export function RunWhere({
  metadata,
  others = true,
}: {
  metadata: Readonly<Record<string, string | undefined>>;
  /** Also the metadata this does not show by name (as key=value pills). */
  others?: boolean;
}) {
  const { ci_node: node, ci_commit: commit, ci_step: step } = metadata;
  const rest = Object.entries(metadata).filter(([k, v]) => !SHOWN.has(k) && v !== undefined);
  return (
    <span className="run-where" data-testid="run-where">
      <BuildLink metadata={metadata} />
      {node && (
        <span className="pill nowrap" data-testid="where-node" title="ci_node">
          {node}
        </span>
      )}
      {commit && <Commit commit={commit} className="pill" testId="where-commit" />}
      {step && (
        <span className="pill" data-testid="where-step" title="ci_step">
          {step}
        </span>
      )}
      {others &&
        rest.map(([k, v]) => (
          <span key={k} className="pill">
            {k}={v}
          </span>
        ))}
    </span>
  );
}
