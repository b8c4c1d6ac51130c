/**
 * `--junit-xml FILE`: the run as one JUnit test suite with one test case, for the tools that read JUnit
 * (Buildkite Test Engine, Trunk, Datadog, BuildPulse, Jenkins, GitLab's test reports). The test case's
 * `classname` and `name` are the same on every build of the job, so those tools see one test's history; a
 * stall is `<failure type="stall">` naming its phase and fingerprint, another failure its own type, a pass
 * none. Every text is escaped by xmlText.ts: a stack frame or an error may hold anything.
 */
import type { CiReport } from './ciReport.ts';
import { xmlAttr, xmlText } from './xmlText.ts';

/** The `<properties>` of the suite, in order: what a flaky-test tool shows beside a failure. */
export function junitProperties(r: CiReport): [string, string][] {
  const m = r.metadata;
  const props: [string, string | null | undefined][] = [
    ['verdict', r.verdict],
    ['run_id', r.runId],
    ['fingerprint', r.stall?.fingerprint],
    ['phase', r.stall?.phase],
    ['fingerprint_source', r.stall?.source],
    ['build', m.ci_build],
    ['build_url', r.links.build],
    ['node', m.ci_node],
    ['commit', m.ci_commit],
    ['pipeline', m.ci_pipeline],
    ['step', m.ci_step],
    ['dashboard_run_url', r.links.run],
    ['dashboard_board_url', r.links.board],
  ];
  return props.filter((p): p is [string, string] => typeof p[1] === 'string' && p[1] !== '');
}

/** What `<system-out>` holds: the notes first (what could not be learned), the stall card, the liveness sentence. */
function systemOut(r: CiReport): string {
  const lines: string[] = [...r.notes.map((n) => `WARNING: ${n}`)];
  if (r.stall) {
    lines.push(`stall: phase ${r.stall.phase}, fingerprint ${r.stall.fingerprint} (${r.stall.label})`);
    if (r.stall.boardSentence) lines.push(`board: ${r.stall.boardSentence}`);
    lines.push(r.stall.stack.length ? 'stack (top first):' : 'stack: none (a timeout seen from the client)');
    for (const f of r.stall.stack) lines.push(`  ${f}`);
  }
  if (r.liveness) lines.push(`liveness: ${r.liveness}`);
  for (const reason of r.reasons) lines.push(`verdict: ${reason}`);
  return lines.join('\n');
}

export function junitXml(r: CiReport, timestamp: Date): string {
  const failures = r.failure ? 1 : 0;
  const time = Number.isFinite(r.durationS) ? r.durationS.toFixed(3) : '0';
  const attrs = (pairs: [string, string][]) => pairs.map(([k, v]) => ` ${k}="${xmlAttr(v)}"`).join('');
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(
    `<testsuites${attrs([
      ['name', 'stallscope'],
      ['tests', '1'],
      ['failures', String(failures)],
      ['errors', '0'],
      ['time', time],
    ])}>`,
  );
  out.push(
    `  <testsuite${attrs([
      ['name', r.classname],
      ['tests', '1'],
      ['failures', String(failures)],
      ['errors', '0'],
      ['skipped', '0'],
      ['time', time],
      ['timestamp', timestamp.toISOString().replace(/\.\d{3}Z$/, '')],
      ...(r.metadata.ci_node ? ([['hostname', r.metadata.ci_node]] as [string, string][]) : []),
    ])}>`,
  );
  out.push('    <properties>');
  for (const [name, value] of junitProperties(r))
    out.push(
      `      <property${attrs([
        ['name', name],
        ['value', value],
      ])}/>`,
    );
  out.push('    </properties>');
  out.push(
    `    <testcase${attrs([
      ['classname', r.classname],
      ['name', r.name],
      ['time', time],
    ])}>`,
  );
  if (r.failure) {
    const f = r.failure;
    out.push(
      `      <failure${attrs([
        ['type', f.type],
        ['message', f.message],
      ])}>${xmlText(r.reasons.join('\n'))}</failure>`,
    );
  }
  out.push(`      <system-out>${xmlText(systemOut(r))}</system-out>`);
  out.push('    </testcase>');
  out.push('  </testsuite>');
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
