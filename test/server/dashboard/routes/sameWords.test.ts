/**
 * One mistake, one message: each cross-field rule of the one validator
 * (shared/config/runConfigIssues.ts) fed the same mistake through
 * `stallscope bench`'s parser (then the engine's check, as `bench` runs it)
 * and through `POST /api/runs`. The words are the same; only the fields'
 * names differ, each interface naming them its own way (runConfigNames.ts).
 */
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';
import { validateBenchConfig } from '#server/engine/run/validate.ts';
import { ERRORS, StallscopeError } from '#shared/errors.ts';
import { RUN_CONFIG_NAMES, flagOf, specName } from '#shared/config/runConfigNames.ts';

const BASE_SPEC = {
  target: { kind: 'url', baseUrl: 'http://127.0.0.1:8000' },
  dataset: { name: 'random', inputLen: 8, outputLen: 4 },
  numPrompts: 20,
};

/** A rule's mistake as flags and as a RunSpec (over BASE_SPEC); `says`: words the refusal must hold. */
const CASES: { rule: string; argv: string[]; spec: Record<string, unknown>; says?: string }[] = [
  {
    rule: 'fail-fast needs an effective timeout',
    argv: ['--omni-fail-fast-on-timeout', '--omni-request-timeout-s', '0'],
    spec: { failFast: true, timeouts: { totalS: 0 } },
  },
  {
    rule: 'a timeouts stop rule needs an effective timeout',
    argv: ['--stop-on', 'timeouts>=2', '--omni-request-timeout-s', '-1'],
    spec: { stopOn: ['timeouts>=2'], timeouts: { totalS: -1 } },
  },
  {
    rule: 'a stop rule the run could never meet',
    argv: ['--num-prompts', '20', '--stop-on', 'errors>=50'],
    spec: { stopOn: ['errors>=50'] },
  },
  {
    rule: 'no_progress waits at most 24 h (S × 1000 past 2³¹ − 1 would fire at once)',
    argv: ['--stop-on', 'no_progress>=2147484'],
    spec: { stopOn: ['no_progress>=2147484'] },
    says: 'the seconds must be at most 86400 (24 h',
  },
  {
    rule: 'a live threshold below what its key can be never trips',
    argv: ['--stop-on', 'mean_e2el_ms<=-1'],
    spec: { stopOn: ['mean_e2el_ms<=-1'] },
    says: 'can never trip: mean_e2el_ms is never below 0',
  },
  {
    rule: 'a count of requests beyond the run never trips',
    argv: ['--stop-on', 'completed>=21'],
    spec: { stopOn: ['completed>=21'] },
    says: 'completed never exceeds 20 (it counts requests, and the run has 20)',
  },
  {
    rule: 'a timeout longer than a timer can wait',
    argv: ['--omni-request-timeout-s', '2147484'],
    spec: { timeouts: { totalS: 2147484 } },
    says: '2147484 s is longer than a timer can wait (at most 2147483 s',
  },
  {
    rule: "each backend's endpoint",
    argv: ['--backend', 'openai-audio-speech', '--endpoint', '/v1/chat/completions'],
    spec: { backend: 'openai-audio-speech', endpoint: '/v1/chat/completions' },
  },
  { rule: 'self-timed needs a trace', argv: ['--self-timed'], spec: { selfTimed: true } },
  {
    rule: 'ramp-up takes the rate from its start and end',
    argv: ['--ramp-up-strategy', 'linear', '--ramp-up-start-rps', '1', '--ramp-up-end-rps', '5', '--request-rate', '3'],
    spec: { rampUp: { strategy: 'linear', startRps: 1, endRps: 5 }, requestRate: 3 },
  },
  {
    rule: 'ramp-up starts at most at its end',
    argv: ['--ramp-up-strategy', 'linear', '--ramp-up-start-rps', '6', '--ramp-up-end-rps', '5'],
    spec: { rampUp: { strategy: 'linear', startRps: 6, endRps: 5 } },
  },
  {
    rule: 'more than one turn per session needs a realtime backend',
    argv: ['--seed-tts-turns-per-session', '2'],
    spec: { turnsPerSession: 2 },
  },
  {
    rule: 'duplex speaks Seed-TTS audio',
    argv: ['--backend', 'openai-realtime-duplex'],
    spec: { backend: 'openai-realtime-duplex', endpoint: '/v1/realtime' },
  },
  {
    rule: 'the WER gate needs an http(s) transcription server',
    argv: ['--dataset-name', 'seed-tts', '--dataset-path', 'org/name', '--seed-tts-wer-eval', '--asr-url', 'ftp://h'],
    spec: {
      dataset: { name: 'seed-tts', path: 'org/name', werEval: { enabled: true, asrUrl: 'ftp://h' } },
    },
  },
  {
    rule: 'server stacks by auto need a loopback target',
    argv: ['--base-url', 'http://10.1.2.3:8000', '--server-pid', 'auto', '--capture-server-stacks'],
    spec: { target: { kind: 'url', baseUrl: 'http://10.1.2.3:8000', serverStacks: { pid: 'auto' } } },
  },
];

/**
 * A message with each field's name in one interface (a flag; a RunSpec field,
 * dotted or camelCase, not a plain word such as "backend") replaced by its
 * config path, in one pass; a name of several paths stands for the most precise.
 */
function unnamer(pick: 'spec' | 'flag'): (text: string) => string {
  const pathOf = new Map<string, string>();
  for (const [path, n] of Object.entries(RUN_CONFIG_NAMES)) {
    const name = n[pick];
    if (!name || (pick === 'spec' && !/[.A-Z]/.test(name))) continue;
    if ((pathOf.get(name)?.length ?? 0) < path.length) pathOf.set(name, path);
  }
  const names = [...pathOf.keys()].sort((x, y) => y.length - x.length);
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const re = new RegExp(`(?<![\\w.-])(${names.map(escape).join('|')})(?![\\w-])`, 'g');
  return (text) => text.replace(re, (name) => `<${pathOf.get(name)}>`);
}

function cliRefusal(argv: string[]): StallscopeError {
  try {
    validateBenchConfig(parseBenchArgs(['--model', 'm', '--num-prompts', '20', ...argv]).config);
  } catch (e) {
    if (e instanceof StallscopeError) return e;
    throw e;
  }
  throw new Error(`not refused: ${argv.join(' ')}`);
}

describe('a cross-field mistake reads the same through the CLI and POST /api/runs', () => {
  for (const { rule, argv, spec, says } of CASES)
    it(rule, async ({ app }) => {
      const cli = cliRefusal(argv);
      const r = await app.inject({ method: 'POST', url: '/api/runs', payload: { ...BASE_SPEC, ...spec } });
      expect(r.statusCode, r.body).toBe(400);
      const body = r.json() as { code: string; issues: { field: string; message: string; severity: string }[] };
      const issue = body.issues.find((i) => i.severity === 'error')!;
      // The same field, each named its own way; the same code.
      expect(issue.field).toBe(specName(cli.field!));
      expect(body.code).toBe(cli.code);
      // The same words: the CLI says the code's headline then the rule's sentence, the API the sentence on the field.
      const headline = `${ERRORS[cli.code].message}: `;
      expect(cli.message.startsWith(headline)).toBe(true);
      expect(unnamer('flag')(cli.message.slice(headline.length))).toBe(unnamer('spec')(issue.message));
      if (says) expect(issue.message).toContain(says);
      // The CLI's line names the flag (in the sentence, or after it).
      expect(flagOf(cli.field!) ?? cli.field).toBeTruthy();
    });
});
