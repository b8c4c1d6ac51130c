/** Vitest global setup: compiles dist/ when stale, once, before any test file runs (see helpers/ensureBuild.ts). */
import { ensureBuild } from './helpers/ensureBuild.ts';

export default function setup(): void {
  ensureBuild();
}
