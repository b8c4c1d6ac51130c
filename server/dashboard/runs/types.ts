/** What routes need from the run manager (the real one, or a test double). */
import type { RunSpec, SpecIssue } from '../../../shared/config/runSpec.ts';
import type { RunConfig } from '../../../shared/config/runConfig.ts';

export interface RunStarter {
  /**
   * Validates, records and starts a run; throws SpecError/StallscopeError (400) before anything starts.
   * `config` is the run configuration the route checked the spec as (built once); built here when absent.
   */
  start(spec: RunSpec, config?: RunConfig): Promise<{ id: string; warnings: SpecIssue[] }>;
  /** Aborts a live run; false if it is not one of this manager's live runs. */
  cancel(id: string): boolean;
  /** Aborts every live run and waits until each is recorded as interrupted. */
  shutdown(): Promise<void>;
}
