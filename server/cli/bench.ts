/**
 * `stallscope bench`: the CI entry point. Parses vLLM-compatible flags,
 * runs the engine, prints the vLLM-style summary and exits with the
 * verdict's code (0 passed, 1 failed, 2 usage/config, 3 failed_closed,
 * 4 interrupted, 5 errored). SIGINT/SIGTERM abort the requests in flight
 * and still write the partial result (exit 4); a second signal exits at once.
 */
import { StallscopeError } from '../../shared/errors.ts';
import { redactSecrets } from '../../shared/redact.ts';
import { flatRunConfig } from '../../shared/config/runConfig.ts';
import { flagOf } from '../../shared/config/runConfigNames.ts';
import type { Verdict } from '../../shared/types.ts';
import type { BenchOutcome } from '../engine/engine.ts';
import { parseBenchArgs, type ParsedBench } from './benchArgs.ts';
import { BENCH_USAGE } from './benchFlags.ts';
import type { RemoteReporter } from '../engine/report/remote.ts';
import type { Progress } from './benchProgress.ts';
import type { BenchEvent } from '../../shared/protocol/protocol.ts';
import type { RunEvidence } from './ciOutput/runEvidence.ts';
import type * as CiOutput from './ciOutput/index.ts';

export const EXIT_CODES: Record<Verdict, number> = {
  passed: 0,
  failed: 1,
  failed_closed: 3,
  interrupted: 4,
  errored: 5,
};

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(BENCH_USAGE);
    return 0;
  }
  let parsed: ParsedBench;
  try {
    parsed = parseBenchArgs(argv, process.env);
  } catch (e) {
    return refuse(e);
  }
  for (const w of parsed.warnings) console.error(w);
  // Loaded once the flags are known to be good: `--help` and a refused flag
  // answer without loading the engine (undici, the kernels) or the progress bar.
  const [
    { runBenchmark },
    { validateBenchConfig },
    { serverStacksProbes },
    { livenessProbes },
    { formatSummary },
    { createProgress },
  ] = await Promise.all([
    import('../engine/engine.ts'),
    import('../engine/run/validate.ts'),
    import('../engine/probes/serverStacks/index.ts'),
    import('../engine/probes/liveness/index.ts'),
    import('../engine/results/summary.ts'),
    import('./benchProgress.ts'),
  ]);

  let reporter: RemoteReporter | null = null;
  if (parsed.reportTo) {
    try {
      reporter = await openReporter(parsed.reportTo, parsed.config.runId, reportedConfig(parsed));
    } catch (e) {
      console.error(redactSecrets(`stallscope bench: --report-to ${parsed.reportTo}: ${(e as Error).message}`));
      return 2;
    }
  }

  const ctrl = new AbortController();
  // Set once the run is over (its result written): a signal then only stops waiting for the reporter.
  const reporterWait = new AbortController();
  let runOver = false;
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (runOver) {
      console.error(`\n${sig}: not waiting for the dashboard any longer`);
      reporterWait.abort();
      return;
    }
    signals++;
    if (signals === 1) {
      console.error(`\n${sig}: aborting the requests in flight and writing the partial result...`);
      ctrl.abort('signal'); // the result's interrupt_cause
    } else {
      console.error(`${sig} again: exiting without waiting`);
      process.exit(EXIT_CODES.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = parsed.disableProgress ? null : createProgress(process.stderr);
  // Loaded only for --junit-xml / --ci-summary: it watches the run's events for its stall evidence.
  const { junitXml, summary: ciSummary } = parsed.ciOutput;
  const ciOutput = junitXml || ciSummary ? await import('./ciOutput/index.ts') : null;
  const runEvidence = ciOutput ? new ciOutput.RunEvidence() : null;

  let outcome: BenchOutcome;
  try {
    // The engine's refusals first (it checks again), then the probe's: the order they always came in.
    validateBenchConfig(parsed.config);
    const { evidence } = parsed.config;
    const probes = [
      ...(await serverStacksProbes(evidence.serverStacks, parsed.config.target.baseUrl)),
      ...(evidence.liveness ? livenessProbes(evidence.liveness, parsed.config) : []),
    ];
    outcome = await runBenchmark(parsed.config, {
      probes,
      signal: ctrl.signal,
      log: (line) => console.log(redactSecrets(line)),
      onDownloadProgress: (p) => progress?.onDownload(p),
      onEvent: eventSubscriber(progress, reporter, runEvidence),
    });
  } catch (e) {
    return refuse(e);
  } finally {
    progress?.stop();
    // The reporter's close may wait (up to 5 s for a dashboard that does not answer), so our handler
    // stays: after an interrupted run a second signal exits 4 at once rather than die by the signal;
    // after a run that ended by itself a signal stops the wait and the run's own exit code stands.
    runOver = signals === 0;
    await reporter
      ?.close(reporterWait.signal)
      .catch((err: Error) => console.error(redactSecrets(`stallscope bench: reporter: ${err.message}`)));
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  console.log(formatSummary(outcome.result));
  if (outcome.resultFile) console.log(`Result written to ${outcome.resultFile}`);
  // After the reporter's close: the run's own evidence is posted, so the board can file it.
  if (ciOutput && runEvidence) await writeCi(ciOutput, { parsed, outcome, evidence: runEvidence, wait: reporterWait });
  return EXIT_CODES[outcome.summary.verdict];
}

/**
 * `--junit-xml` / `--ci-summary` after the run. A signal meanwhile stops waiting for the dashboard's board (the
 * outputs then say it was not read); the run's exit code stands whatever happens here.
 */
async function writeCi(
  ciOutput: typeof CiOutput,
  o: { parsed: ParsedBench; outcome: BenchOutcome; evidence: RunEvidence; wait: AbortController },
): Promise<void> {
  const stopWaiting = (sig: NodeJS.Signals): void => {
    console.error(`\n${sig}: not waiting for the dashboard any longer`);
    o.wait.abort();
  };
  process.on('SIGINT', stopWaiting);
  process.on('SIGTERM', stopWaiting);
  try {
    await ciOutput.writeCiOutputs({
      flags: o.parsed.ciOutput,
      config: o.parsed.config,
      summary: o.outcome.summary,
      result: o.outcome.result,
      evidence: o.evidence,
      reportTo: o.parsed.reportTo,
      env: process.env,
      warn: (line) => console.error(redactSecrets(line)),
      signal: o.wait.signal,
    });
  } catch (e) {
    console.error(redactSecrets(`stallscope bench: warning: CI outputs: ${(e as Error).message}`));
  } finally {
    process.off('SIGINT', stopWaiting);
    process.off('SIGTERM', stopWaiting);
  }
}

function refuse(e: unknown): number {
  if (e instanceof StallscopeError) {
    // The refusal names its field by config path (the one validator's, shared/config/runConfigIssues.ts) or by flag.
    const flag = e.field ? (flagOf(e.field) ?? (e.field.startsWith('-') ? e.field : null)) : null;
    console.error(
      redactSecrets(`stallscope bench: ${e.message}${flag && !e.message.includes(flag) ? ` (${flag})` : ''}`),
    );
    console.error(`Run 'stallscope bench --help' for the options.`);
    return e.exitCode;
  }
  console.error(redactSecrets(`stallscope bench: internal error: ${(e as Error)?.stack ?? String(e)}`));
  return EXIT_CODES.errored;
}

/**
 * What the dashboard is told the run was given: the config in the flat shape
 * it was always reported in (flatRunConfig), the server-stacks settings and
 * the liveness probe's when it is on.
 */
function reportedConfig(parsed: ParsedBench): unknown {
  const { serverStacks, liveness } = parsed.config.evidence;
  return {
    ...flatRunConfig(parsed.config),
    ...(serverStacks ? { serverStacks } : {}),
    ...(liveness?.enabled ? { livenessAtStall: liveness } : {}),
  };
}

async function openReporter(url: string, runId: string, config: unknown): Promise<RemoteReporter> {
  // Loaded only when --report-to is used.
  const { createRemoteReporter } = await import('../engine/report/remote.ts');
  return createRemoteReporter({ url, runId, config, log: (l) => console.error(l) });
}

/**
 * The run's event subscriber: the progress bar, the reporter and the CI outputs' evidence, or none when none is
 * there (output piped, no --report-to, no CI output), so the engine builds no event at all (RunEvents skips its
 * work without a subscriber): a few events per request that nobody would read (docs/design.md#request-body).
 */
export function eventSubscriber(
  progress: Pick<Progress, 'onEvent'> | null,
  reporter: Pick<RemoteReporter, 'onEvent'> | null,
  evidence: Pick<RunEvidence, 'onEvent'> | null = null,
): ((e: BenchEvent) => void) | undefined {
  if (!progress && !reporter && !evidence) return undefined;
  return (e) => {
    progress?.onEvent(e);
    reporter?.onEvent(e);
    evidence?.onEvent(e);
  };
}
