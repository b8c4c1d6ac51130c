/**
 * The JUnit writer against a reader nobody here wrote (libxml2 through lxml, and the documented JUnit schema):
 * hostile text from a peer — markup, quotes, `]]>`, NUL and other control characters, a lone surrogate, line
 * breaks in an attribute — parses, validates and reads back as written (a character XML cannot hold shown
 * as `\uXXXX`); the test case's classname and name carry no run id or time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CiReport } from '#server/cli/ciOutput/ciReport.ts';
import { junitXml } from '#server/cli/ciOutput/junitXml.ts';
import { xmlSafeChars } from '#server/cli/ciOutput/xmlText.ts';
import { readJunit } from '#test/helpers/junitCheck.ts';

const HOSTILE = `<script>alert("x")</script> & 'q' ]]> \u0000nul \u0001\u001b[31mred\u007f \ud800lone \u{1F600} tab\tnl\ncr\r`;

function report(over: Partial<CiReport> = {}): CiReport {
  return {
    runId: 'bench-1a2b3c4d',
    classname: 'vllm-omni.minicpmo-accuracy',
    name: 'openai-chat-omni · random',
    title: 'build 14607 · node-b · minicpmo-accuracy',
    verdict: 'failed_closed',
    durationS: 2.5,
    failure: { type: 'stall', message: `stalled in phase hift, fingerprint 0123456789ab (hift/${HOSTILE})` },
    reasons: ['failed closed: a partial run never passes, whatever its scores', `1 request timed out ${HOSTILE}`],
    stall: {
      source: 'board',
      fingerprint: '0123456789ab',
      phase: 'hift',
      label: 'hift/blockOnDeviceSync',
      stack: [`blockOnDeviceSync (${HOSTILE}:12)`, 'hiftStep (hift.ts:40)'],
      boardSentence: 'fingerprint hift/blockOnDeviceSync seen in 1 of the last 1 runs',
    },
    liveness:
      "The server answers health in 3 ms, but none of the run's 2 requests in flight has received a byte for 2.0 s.",
    metadata: { ci_build: '14607', ci_node: `node-b ${HOSTILE}`, ci_commit: 'a1b2c3d' },
    links: {
      build: 'https://buildkite.com/x/builds/14607',
      run: 'http://127.0.0.1:1/#/runs/bench-1a2b3c4d',
      board: null,
    },
    notes: [],
    ...over,
  };
}

function roundTrip(r: CiReport) {
  const dir = mkdtempSync(join(tmpdir(), 'junit-'));
  const file = join(dir, 'junit.xml');
  writeFileSync(file, junitXml(r, new Date('2026-12-06T11:00:00.123Z')));
  return readJunit(file);
}

describe('junitXml', () => {
  it('hostile text parses, validates against the JUnit schema and reads back as written', () => {
    const [suite] = roundTrip(report());
    const [c] = suite.cases;
    expect(c.classname).toBe('vllm-omni.minicpmo-accuracy');
    expect(c.name).toBe('openai-chat-omni · random');
    expect(c.failure?.type).toBe('stall');
    // Attribute values keep their tabs and line breaks; what XML cannot hold is shown, not dropped.
    const shown = xmlSafeChars(HOSTILE);
    expect(shown).toContain('\\u0000nul \\u0001\\u001b[31mred');
    expect(shown).toContain('\\ud800lone \u{1F600}');
    expect(c.failure?.message).toBe(`stalled in phase hift, fingerprint 0123456789ab (hift/${shown})`);
    expect(c.failure?.text).toBe(
      `failed closed: a partial run never passes, whatever its scores\n1 request timed out ${shown}`.replace(
        /\r/g,
        '\n',
      ),
    );
    expect(suite.properties).toMatchObject({
      fingerprint: '0123456789ab',
      phase: 'hift',
      build: '14607',
      node: `node-b ${shown}`,
      commit: 'a1b2c3d',
      dashboard_run_url: 'http://127.0.0.1:1/#/runs/bench-1a2b3c4d',
    });
    expect(suite.hostname).toBe(`node-b ${shown}`);
    expect(c.systemOut).toContain(`  blockOnDeviceSync (${shown.replace(/\r/g, '\n')}:12)`);
    expect(c.systemOut).toContain('liveness: The server answers health in 3 ms');
  });

  it('a passed run has no failure; the counts say so', () => {
    const [suite] = roundTrip(
      report({ verdict: 'passed', failure: null, stall: null, reasons: ['all 2 requests completed'] }),
    );
    expect(suite).toMatchObject({ tests: '1', failures: '0' });
    expect(suite.cases[0].failure).toBeNull();
    expect(suite.properties.fingerprint).toBeUndefined();
  });

  it('a note the outputs could not learn is in system-out, loud', () => {
    const [suite] = roundTrip(report({ notes: ['the board could not be read (HTTP 403)'] }));
    expect(suite.cases[0].systemOut.split('\n')[0]).toBe('WARNING: the board could not be read (HTTP 403)');
  });
});
