/**
 * Refuses a configuration before anything is sent (docs/design.md#refusals):
 * first the one validator every interface calls (shared/config/runConfigIssues.ts),
 * then what needs this machine — the dataset's folder or file, a result file
 * name, the headers the run's client can send — and the thresholds' syntax
 * (the verdict's, which shared/config/ may not import). Each refusal is a
 * StallscopeError naming the offending field by config path; the CLI maps it
 * to its flag and exit 2, the dashboard to its RunSpec field and a 400.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { StallscopeError } from '../../../shared/errors.ts';
import { parseThreshold } from '../../../shared/runInfo/verdict.ts';
import { runConfigIssues, stopRulesIssue, type ConfigIssue } from '../../../shared/config/runConfigIssues.ts';
import type { RunConfig } from '../../../shared/config/runConfig.ts';
import { resultFilenameEscape } from '../results/resultFile.ts';
import { isFolder, isHubDatasetId } from '../datasets/hub/hubCache.ts';
import { headerIssue } from '../transport/h1/requestHead.ts';

/** A validator's issue as the refusal the CLI and the engine throw. */
export function issueError(issue: ConfigIssue): StallscopeError {
  return new StallscopeError(issue.code, issue.message, issue.path);
}

const bad = (detail: string, field: string): never => {
  throw new StallscopeError('CONFIG_INVALID', detail, field);
};

export function validateBenchConfig(c: RunConfig): void {
  const [first] = runConfigIssues(c);
  if (first) throw issueError(first);
  // Checked here as the run's client checks each request's (http/h1/requestHead.ts): refused before anything is sent.
  for (const [name, value] of Object.entries(c.target.headers ?? {})) {
    const issue = headerIssue(name, value);
    if (issue) bad(`--header ${name}: ${issue}`, 'target.headers');
  }
  if (c.target.apiKey && headerIssue('authorization', `Bearer ${c.target.apiKey}`))
    bad('the API key has a control character or a character past Latin-1: it cannot go in a header', 'target.apiKey');
  for (const t of c.output.thresholds) {
    try {
      parseThreshold(t);
    } catch (e) {
      bad(`'${t}': ${(e as Error).message}`, 'output.thresholds');
    }
  }
  const escape = c.output.save?.filename === undefined ? null : resultFilenameEscape(c.output.save.filename);
  if (escape) bad(`result-filename '${c.output.save?.filename}' ${escape}`, 'output.save.filename');
  validateDataset(c);
}

/**
 * The stop rules (docs/design.md#stop-rules) against a run of `numRequests`,
 * by the one validator's rule: run again once the dataset is loaded, with its
 * real size (runSetup.ts).
 */
export function validateStopRules(c: RunConfig, numRequests: number): void {
  const issue = stopRulesIssue(c, numRequests);
  if (issue) throw issueError(issue);
}

/** The dataset's folder or file, as this machine sees it. */
function validateDataset(c: RunConfig): void {
  const d = c.workload.dataset;
  const unreadable = (detail: string): never => {
    throw new StallscopeError('CONFIG_DATASET_UNREADABLE', detail, 'workload.dataset.path');
  };
  switch (d.name) {
    case 'seed-tts': {
      if (!d.path)
        unreadable('seed-tts needs --dataset-path (a folder with {locale}/meta.lst, or a Hub dataset id ORG/NAME)');
      // As vLLM-Omni: a folder if there is one, else a Hub dataset id, found or fetched when the run starts.
      if (isFolder(d.path)) {
        const meta = join(d.path, d.locale, 'meta.lst');
        try {
          accessSync(meta, constants.R_OK);
        } catch {
          unreadable(`${meta} is missing or unreadable`);
        }
      } else if (!isHubDatasetId(d.path)) {
        unreadable(`${d.path} is not a folder, nor a Hub dataset id (ORG/NAME)`);
      }
      return;
    }
    case 'trace':
      if (!d.path) unreadable('trace needs --dataset-path (a JSONL file)');
      try {
        if (!statSync(d.path).isFile()) unreadable(`${d.path} is not a file`);
        accessSync(d.path, constants.R_OK);
      } catch (e) {
        if (e instanceof StallscopeError) throw e;
        unreadable(`${d.path} is missing or unreadable`);
      }
      return;
    default:
      return;
  }
}
