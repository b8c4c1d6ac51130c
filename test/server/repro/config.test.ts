import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionsFromArgv } from '#server/cli/reproServer.ts';
import { resolveOptions } from '#server/repro/config.ts';
import { type StallscopeError } from '#shared/errors.ts';

const ENV = 'VLLM_OMNI_CODE2WAV_WATCHDOG_TIMEOUT_S';
const dir = mkdtempSync(join(tmpdir(), 'stallscope-target-'));
const configFile = (obj: unknown) => {
  const p = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(p, JSON.stringify(obj));
  return p;
};
/** The watchdog timeout the target would run with, given argv and environment. */
const effective = (argv: string[], env: Record<string, string | undefined>) =>
  resolveOptions({ ...optionsFromArgv(argv)!, env });
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as StallscopeError;
  }
  throw new Error('not refused');
};

describe('watchdog setting precedence', () => {
  it('is flag > config file > environment, and off when unset or 0', () => {
    const cfg = configFile({ watchdogTimeoutS: 30 });
    expect(effective(['--watchdog-timeout-s', '5', '--config', cfg], { [ENV]: '60' }).watchdogTimeoutS).toBe(5);
    expect(effective(['--config', cfg], { [ENV]: '60' }).watchdogTimeoutS).toBe(30);
    expect(effective([], { [ENV]: '60' })).toMatchObject({
      watchdogTimeoutS: 60,
      watchdogSource: `environment variable ${ENV}`,
    });
    expect(effective([], {}).watchdogTimeoutS).toBe(0);
    expect(effective([], { [ENV]: '' }).watchdogTimeoutS).toBe(0);
    expect(effective(['--watchdog-timeout-s', '0'], { [ENV]: '60' }).watchdogTimeoutS).toBe(0);
  });

  it('refuses invalid values with CONFIG_WATCHDOG_INVALID naming the source', () => {
    const flag = refusal(() => effective(['--watchdog-timeout-s=-1'], {}));
    expect(flag.code).toBe('CONFIG_WATCHDOG_INVALID');
    expect(flag.message).toContain('--watchdog-timeout-s');
    const cfg = configFile({ watchdogTimeoutS: 'abc' });
    const file = refusal(() => effective(['--config', cfg], {}));
    expect(file.message).toContain(`config file ${cfg}`);
    const env = refusal(() => effective([], { [ENV]: 'NaN' }));
    expect(env.message).toContain(`environment variable ${ENV}`);
    expect(env.exitCode).toBe(2);
    // An invalid value lower in precedence still refuses nothing when a higher one is set.
    expect(effective(['--watchdog-timeout-s', '1'], { [ENV]: 'bad' }).watchdogTimeoutS).toBe(1);
  });
});

describe('repro-server settings', () => {
  it('takes the flags over the config file, and faults from either', () => {
    const cfg = configFile({
      workers: 3,
      maxBatch: 2,
      faults: ['setup:slow:p=0.5'],
      telemetry: { url: 'http://127.0.0.1:1/a' },
    });
    const o = resolveOptions({
      ...optionsFromArgv(['--config', cfg, '--workers', '2', '--telemetry-file', '-'])!,
      env: {},
    });
    expect(o).toMatchObject({
      workers: 2,
      maxBatch: 2,
      faults: [{ phase: 'setup', kind: 'slow', p: 0.5 }],
      telemetry: { url: 'http://127.0.0.1:1/a', file: '-' },
    });
    const f = resolveOptions({
      ...optionsFromArgv(['--config', cfg, '--fault', 'hift:block:after=5', '--fault', 'cfm:spin'])!,
      env: {},
    });
    expect(f.faults).toEqual([
      { phase: 'hift', kind: 'block', after: 5 },
      { phase: 'cfm', kind: 'spin' },
    ]);
  });

  it("takes the flags' camelCase names in the config file and refuses unknown keys", () => {
    const cfg = configFile({
      telemetryFile: '/tmp/t.ndjson',
      telemetryUrl: 'http://127.0.0.1:1/i',
      noCfg: true,
      maxBatch: 3,
    });
    expect(optionsFromArgv(['--config', cfg])).toMatchObject({
      telemetry: { file: '/tmp/t.ndjson', url: 'http://127.0.0.1:1/i' },
      cfg: false,
      maxBatch: 3,
    });
    const typo = configFile({ watchdogTimeout: 5 });
    const err = refusal(() => optionsFromArgv(['--config', typo]));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toContain("unknown key 'watchdogTimeout'");
    expect(err.exitCode).toBe(2);
  });

  it('refuses bad numbers and bad faults with stable codes', () => {
    expect(refusal(() => optionsFromArgv(['--workers', 'two'])).code).toBe('CONFIG_INVALID');
    expect(refusal(() => resolveOptions({ workers: 0, env: {} })).code).toBe('CONFIG_INVALID');
    expect(refusal(() => resolveOptions({ faults: ['hift:melt'], env: {} })).code).toBe('CONFIG_FAULT_INVALID');
    expect(refusal(() => optionsFromArgv(['--config', join(dir, 'missing.json')])).message).toContain('missing.json');
  });
});
