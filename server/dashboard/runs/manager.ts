/**
 * Runs started from the dashboard: RunSpec → run configuration (once), the embedded
 * reproduction server launched for the run (or a URL used as is), the engine's events fed
 * into the hub, and the ending done in the one safe order: the engine ends →
 * the target's telemetry is flushed and ingested → the target is stopped →
 * the held-back `run.finished` and the final status are recorded. So a stall
 * report can never be lost to shutdown order.
 */
import { randomBytes } from 'node:crypto';
import { rateLabel } from '../../../shared/runInfo/rateLabel.ts';
import type { RunFinished } from '../../../shared/protocol/protocol.ts';
import type { RunSpec, SpecIssue } from '../../../shared/config/runSpec.ts';
import { StallscopeError } from '../../../shared/errors.ts';
import type { RunStatus } from '../../../shared/types.ts';
import type { runBenchmark } from '../../engine/engine.ts';
import { validateBenchConfig } from '../../engine/run/validate.ts';
import { flatRunConfig, type RunConfig } from '../../../shared/config/runConfig.ts';
import { specName } from '../../../shared/config/runConfigNames.ts';
import { specToRunConfig } from '../../../shared/config/runSpec.ts';
import { checkServerStacks } from '../../engine/probes/serverStacks/config.ts';
import type { Hub } from '../hub/hub.ts';
import { launchEmbeddedRepro, type LaunchedTarget, type LaunchOptions } from './embeddedRepro.ts';
import { finalizeRun } from './finalize.ts';
import { resultTextParts, writeResultParts } from './resultInParts.ts';
import type { RunStarter } from './types.ts';
import { redactConfig, redactSpec, redactUrl } from './redact.ts';
import { trimTrailingSlashes } from '../../../shared/text.ts';

export interface ManagerDeps {
  hub: Hub;
  /** Ingest URL for a run's embedded repro server, e.g. `http://127.0.0.1:7077/api/ingest?runId=ID`. */
  ingestUrl: (runId: string) => string;
  /** The dashboard's token, handed to an embedded repro server through its environment (never its argv). */
  ingestToken?: string | null;
  engine?: typeof runBenchmark;
  launchTarget?: (o: LaunchOptions) => Promise<LaunchedTarget>;
  targetCommand?: string[];
  log?: (line: string) => void;
  newId?: () => string;
}

/**
 * The config a run is recorded with: the flat shape stored runs always had
 * (flatRunConfig), and the server-stacks probe's settings when it has them.
 */
function recordedConfig(config: RunConfig): unknown {
  const stacks = config.evidence.serverStacks;
  return { ...flatRunConfig(config), ...(stacks ? { serverStacks: stacks } : {}) };
}

/** How long a shutdown waits for live runs to end on their own. */
export const SHUTDOWN_DEADLINE_MS = 1500;

export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:T]/g, '').slice(0, 14)}-${randomBytes(3).toString('hex')}`;
}

export class RunManager implements RunStarter {
  private readonly live = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly engine: typeof runBenchmark | undefined;
  private readonly launch: (o: LaunchOptions) => Promise<LaunchedTarget>;
  private readonly log: (line: string) => void;

  constructor(private readonly deps: ManagerDeps) {
    this.engine = deps.engine;
    this.launch = deps.launchTarget ?? launchEmbeddedRepro;
    this.log = deps.log ?? (() => undefined);
  }

  async start(spec: RunSpec, built?: RunConfig): Promise<{ id: string; warnings: SpecIssue[] }> {
    const id = (this.deps.newId ?? newRunId)();
    // Built once per run (the route hands over the one it checked); an embedded target's URL is set when it listens.
    const config: RunConfig = { ...(built ?? specToRunConfig(spec, id)), runId: id };
    try {
      validateBenchConfig(config); // refuses before anything is sent or launched
      // Then the server-stacks probe's own refusals (no listener, no such process, the rules file).
      if (config.evidence.serverStacks) checkServerStacks(config.evidence.serverStacks, config.target.baseUrl);
    } catch (e) {
      // Named by the RunSpec's field, as the form names it (shared/config/runConfigNames.ts).
      if (e instanceof StallscopeError && e.field) throw new StallscopeError(e.code, e.message, specName(e.field));
      throw e;
    }
    const { hub } = this.deps;
    await hub.store.runWrites.insertRun({
      id,
      source: 'dashboard',
      status: 'running',
      label: spec.label ?? null,
      model: spec.model,
      target: spec.target.kind === 'url' ? redactUrl(spec.target.baseUrl) : 'embedded',
      dataset: spec.dataset.name,
      numPrompts: spec.numPrompts,
      maxConcurrency: spec.maxConcurrency,
      requestRate: rateLabel(spec.requestRate, spec.rampUp),
      failFast: spec.failFast,
      createdAtMs: Date.now(),
      spec: redactSpec(spec),
      config: redactConfig(recordedConfig(config)),
      metadata: spec.metadata,
    });
    hub.open(id, spec.label ?? null);
    hub.append(id, {
      type: 'run.status',
      t: 0,
      status: 'running',
      message: spec.target.kind === 'embedded' ? 'launching the embedded repro server' : undefined,
    });
    const abort = new AbortController();
    // Never an unhandled rejection: a failure while recording the end is logged, the dashboard stays up.
    const done = this.execute(id, spec, config, abort.signal)
      .catch((e: unknown) => this.log(`[${id}] recording the end of the run failed: ${(e as Error).message}`))
      .finally(() => this.live.delete(id));
    this.live.set(id, { abort, done });
    return { id, warnings: [] };
  }

  private async execute(id: string, spec: RunSpec, config: RunConfig, signal: AbortSignal): Promise<void> {
    const { hub } = this.deps;
    const log = (line: string) => this.log(`[${id}] ${line}`);
    let target: LaunchedTarget | null = null;
    let finished: RunFinished | null = null;
    let final: {
      status: RunStatus;
      summary?: RunFinished['summary'];
      /** The result's text in parts (resultInParts.ts), built as they are written. */
      parts?: Iterable<string>;
      error?: string;
    };
    try {
      if (spec.target.kind === 'embedded') {
        target = await this.launch({
          spec: spec.target,
          model: spec.model,
          telemetryUrl: this.deps.ingestUrl(id),
          telemetryToken: this.deps.ingestToken ?? null,
          command: this.deps.targetCommand,
          log,
        });
        // The one config gets the URL its server listens on.
        config.target.baseUrl = trimTrailingSlashes(target.baseUrl);
        await hub.store.runWrites.update(id, { config: redactConfig(recordedConfig(config)) });
      }
      // Loaded on first use: the dashboard starts (and serves saved runs) even without the engine's heavy imports.
      const engine = this.engine ?? (await import('../../engine/engine.ts')).runBenchmark;
      const [{ serverStacksProbes }, { livenessProbes }] = await Promise.all([
        import('../../engine/probes/serverStacks/index.ts'),
        import('../../engine/probes/liveness/index.ts'),
      ]);
      const { evidence } = config;
      const probes = [
        ...(await serverStacksProbes(evidence.serverStacks, config.target.baseUrl)),
        ...(evidence.liveness ? livenessProbes(evidence.liveness, config) : []),
      ];
      const out = await engine(config, {
        probes,
        signal,
        log,
        lastPhaseOf: (rid) => hub.tracker(id)?.phaseOf(rid),
        onEvent: (e) => {
          // Held back until the target's telemetry is in: "finished" must come after every stall report.
          if (e.type === 'run.finished') finished = e;
          // A run recorded as interrupted by a shutdown past its deadline takes no more events.
          else if (!hub.isActive(id)) return;
          else hub.append(id, e);
        },
      });
      const v = out.summary.verdict;
      final = {
        status: v === 'interrupted' ? 'interrupted' : v === 'errored' ? 'errored' : 'finished',
        summary: out.summary,
        parts: resultTextParts(out.result, out.records),
      };
    } catch (e) {
      log(`run failed: ${(e as Error).message}`);
      final = { status: signal.aborted ? 'interrupted' : 'errored', error: (e as Error).message };
    }
    if (target) {
      await target.flushTelemetry();
      await target.stop();
    }
    if (!hub.isActive(id)) return; // already recorded by shutdown()
    const { parts, ...outcome } = final;
    const write = (part: number, text: string) => hub.store.runWrites.writeResultPart(id, part, text);
    const resultParts = parts ? await writeResultParts(parts, write, () => !hub.isActive(id)) : undefined;
    if (resultParts === null) return; // recorded by shutdown() meanwhile
    if (finished) hub.append(id, finished);
    await finalizeRun(hub, id, { ...outcome, resultParts });
  }

  cancel(id: string): boolean {
    const run = this.live.get(id);
    if (!run) return false;
    run.abort.abort('dashboard'); // the result's interrupt_cause
    return true;
  }

  /** Resolves when the run has been fully recorded (tests, shutdown). */
  whenDone(id: string): Promise<void> {
    return this.live.get(id)?.done ?? Promise.resolve();
  }

  /**
   * Aborts every live run and waits for each to be recorded, up to
   * `deadlineMs`: a run whose engine is still winding down then (a million
   * queued requests to cancel, a target slow to flush) is recorded as
   * interrupted as it stands, so the dashboard stops within its deadline
   * whatever the run's size.
   */
  async shutdown(deadlineMs = SHUTDOWN_DEADLINE_MS): Promise<void> {
    for (const r of this.live.values()) r.abort.abort('signal'); // the dashboard is going down
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      Promise.all([...this.live.values()].map((r) => r.done)).then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), deadlineMs))),
    ]);
    clearTimeout(timer);
    if (!late) return;
    const ends: Promise<void>[] = [];
    for (const id of this.live.keys()) {
      this.log(`[${id}] still winding down after ${deadlineMs} ms: recorded as interrupted as it stands`);
      ends.push(
        finalizeRun(this.deps.hub, id, {
          status: 'interrupted',
          message: 'the dashboard stopped before the run could end',
        }),
      );
    }
    await Promise.all(ends);
  }
}
