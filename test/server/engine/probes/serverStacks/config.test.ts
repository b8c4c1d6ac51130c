/**
 * Server-stacks settings from the CLI and the dashboard: the flags parse into
 * one config, each misuse is refused naming its flag before anything is
 * sent; the RunSpec's "Capture server stacks" maps onto the same config and
 * the run manager hands the probe it builds to the engine; the
 * server refuses `auto` for a target that is not loopback (and the form says
 * the same, from the same rule); a bad phase-rules file is refused.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { test as it } from '#test/helpers/fixtures.ts';
import { parseBenchArgs } from '#server/cli/benchArgs.ts';
import { loadPhaseRules } from '#server/engine/probes/serverStacks/rules.ts';
import { SEED_TTS_URL } from '#shared/config/presets.ts';
import { runSpecIssues, specToRunConfig, withRunSpecDefaults, type RunSpec } from '#shared/config/runSpec.ts';
import { isLoopbackUrl } from '#shared/stalls/stallReport.ts';
import type { RunManager } from '#server/dashboard/runs/manager.ts';
import type { EngineOptions } from '#server/engine/engine.ts';
import type { RunConfig } from '#shared/config/runConfig.ts';
import { ServerStacksProbe } from '#server/engine/probes/serverStacks/probe.ts';
import { LivenessProbe } from '#server/engine/probes/liveness/probe.ts';

describe('CLI flags', () => {
  it('parse into the server-stacks config', () => {
    const p = parseBenchArgs([
      '--model',
      'm',
      '--server-pid',
      '1234',
      '--capture-server-stacks',
      '--server-stall-after-s',
      '60',
      '--server-stacks-native',
      '--py-spy',
      '/opt/py-spy',
      '--server-phase-rules',
      'rules.json',
    ]);
    expect(p.config.evidence.serverStacks).toEqual({
      pid: 1234,
      captureOnTimeout: true,
      stallAfterS: 60,
      native: true,
      pySpy: '/opt/py-spy',
      rulesFile: 'rules.json',
    });
    // The probe's settings are the config's evidence, not a field the engine reads elsewhere.
    expect(p.config).not.toHaveProperty('serverStacks');
    expect(
      parseBenchArgs(['--model', 'm', '--server-pid', 'auto', '--capture-server-stacks']).config.evidence.serverStacks,
    ).toMatchObject({ pid: 'auto', captureOnTimeout: true, native: false });
    expect(parseBenchArgs(['--model', 'm']).config.evidence.serverStacks).toBeUndefined();
  });

  it('refuse misuse naming the flag', () => {
    const refused = (argv: string[]) => {
      try {
        parseBenchArgs(['--model', 'm', ...argv]);
      } catch (e) {
        return (e as { field?: string; message: string }).field + ': ' + (e as Error).message;
      }
      return 'accepted';
    };
    expect(refused(['--capture-server-stacks'])).toMatch(/^--server-pid: .*needs --server-pid/);
    expect(refused(['--server-stall-after-s', '5'])).toMatch(/^--server-pid: .*needs --server-pid/);
    expect(refused(['--server-pid', 'me', '--capture-server-stacks'])).toMatch(/^--server-pid: .*not a number/);
    expect(refused(['--server-pid', '0', '--capture-server-stacks'])).toMatch(/^--server-pid: /);
  });
});

describe('RunSpec "Capture server stacks"', () => {
  const spec = (target: object) =>
    withRunSpecDefaults({
      ...SEED_TTS_URL.spec,
      dataset: { name: 'random', inputLen: 8, outputLen: 4 },
      target,
    }) as RunSpec;

  it("maps onto the probe's settings: capture at the first timeout, the stall threshold, native", () => {
    const s = spec({ kind: 'url', baseUrl: 'http://127.0.0.1:8000', serverStacks: { pid: 77, stallAfterS: 30 } });
    const c = specToRunConfig(s, 'r');
    expect(c.evidence.serverStacks).toEqual({ pid: 77, captureOnTimeout: true, stallAfterS: 30, native: false });
    expect(c).not.toHaveProperty('serverStacks');
    expect(specToRunConfig(spec({ kind: 'url', baseUrl: 'http://h:1' }), 'r').evidence.serverStacks).toBeUndefined();
  });

  it('auto for a target that is not loopback: an error beside the field, and a 400 from the server', async ({
    newApp,
  }) => {
    const bad = spec({ kind: 'url', baseUrl: 'http://10.0.0.7:8000', serverStacks: { pid: 'auto' } });
    expect(runSpecIssues(bad)).toEqual([
      expect.objectContaining({
        field: 'target.serverStacks.pid',
        severity: 'error',
        message: expect.stringMatching(/loopback/),
      }),
    ]);
    expect(runSpecIssues(spec({ kind: 'url', baseUrl: 'http://[::1]:8000', serverStacks: { pid: 'auto' } }))).toEqual(
      [],
    );
    let engineCalls = 0;
    const app = await newApp({ manager: { engine: async () => (engineCalls++, Promise.reject(new Error('no'))) } });
    const r = await app.inject({ method: 'POST', url: '/api/runs', payload: bad });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ field: 'target.serverStacks.pid', message: expect.stringMatching(/loopback/) });
    // auto on loopback with nothing listening on the port: refused by the engine's check, before anything starts.
    const none = spec({ kind: 'url', baseUrl: 'http://127.0.0.1:1', serverStacks: { pid: 'auto' } });
    const r2 = await app.inject({ method: 'POST', url: '/api/runs', payload: none });
    expect(r2.statusCode, r2.body).toBe(400);
    expect(r2.json()).toMatchObject({ code: 'CONFIG_SERVER_PID', field: 'target.serverStacks.pid' });
    expect(engineCalls).toBe(0);
  });

  it('the run manager builds the probe and hands it to the engine; the run is recorded with its settings', async ({
    newApp,
  }) => {
    const handed: EngineOptions[] = [];
    const engine = async (_c: RunConfig, o: EngineOptions = {}): Promise<never> => {
      handed.push(o);
      throw new Error('not run in this test');
    };
    const app = await newApp({ manager: { engine } });
    const start = async (target: object, over: object = {}): Promise<{ config: Record<string, unknown> }> => {
      const r = await app.inject({ method: 'POST', url: '/api/runs', payload: { ...spec(target), ...over } });
      expect(r.statusCode, r.body).toBe(201);
      await (app.runManager as RunManager).whenDone(r.json().id);
      return (await app.inject({ url: `/api/runs/${r.json().id}` })).json();
    };
    const stacks = { pid: process.pid, stallAfterS: 30 };
    const d = await start({ kind: 'url', baseUrl: 'http://127.0.0.1:8000', serverStacks: stacks });
    // Liveness at the stall is on by default in dashboard runs (docs/design.md#liveness-at-stall), the stall
    // threshold starting it too; unchecked in the form, it is not built.
    expect(handed[0].probes).toEqual([expect.any(ServerStacksProbe), expect.any(LivenessProbe)]);
    expect((handed[0].probes![1] as unknown as { o: { stallAfterS?: number } }).o.stallAfterS).toBe(30);
    expect(d.config.serverStacks).toEqual({ ...stacks, captureOnTimeout: true, native: false });
    await start({ kind: 'url', baseUrl: 'http://127.0.0.1:8000' });
    expect(handed[1].probes).toEqual([expect.any(LivenessProbe)]);
    await start({ kind: 'url', baseUrl: 'http://127.0.0.1:8000' }, { livenessAtStall: false });
    expect(handed[2].probes).toEqual([]);
  });

  it('loopback means this machine', () => {
    for (const u of ['http://127.0.0.1:8000', 'http://localhost:1', 'http://[::1]:8000', 'http://127.3.4.5'])
      expect(isLoopbackUrl(u), u).toBe(true);
    for (const u of ['http://10.0.0.1:8000', 'http://example.com', 'http://[::2]:1', 'http://127.0.0.1.nip.io'])
      expect(isLoopbackUrl(u), u).toBe(false);
  });
});

describe('phase rules file', () => {
  it('refuses a file that is not JSON, breaks the schema, or has a bad pattern, naming the file', ({
    tempDir: dir,
  }) => {
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    expect(() => loadPhaseRules(write('a.json', '{'))).toThrow(/invalid phase rules file: .*a\.json/);
    expect(() => loadPhaseRules(write('b.json', '{"version":1,"rules":[{"id":"x","phase":"hift","fn":"y"}]}'))).toThrow(
      /b\.json/,
    );
    expect(() =>
      loadPhaseRules(write('c.json', '{"version":1,"rules":[{"id":"x","phase":"hift","function":"("}]}')),
    ).toThrow(/c\.json: rules\[0\] \(x\)\.function/);
    const ok = loadPhaseRules(
      write('d.json', '{"version":1,"rules":[{"id":"mine","phase":"cfm","function":"^my_dit$"}]}'),
    );
    expect(ok.rules.map((r) => r.id)).toEqual(['mine']);
  });
});
