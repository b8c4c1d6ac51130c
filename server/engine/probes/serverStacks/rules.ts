/**
 * The phase rules file (`--server-phase-rules FILE`), checked against the
 * shared schema; without one, the defaults for vLLM-Omni's MiniCPM-o 4.5
 * Code2Wav (defaultPhaseRules.json, which goes through the same check).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Compile } from 'typebox/compile';
import { StallscopeError } from '../../../../shared/errors.ts';
import { compileRules, PhaseRulesFileSchema, type CompiledRules } from '../../../../shared/stalls/phaseRules.ts';

export const DEFAULT_RULES_FILE = fileURLToPath(new URL('./defaultPhaseRules.json', import.meta.url));
const check = Compile(PhaseRulesFileSchema);

export function loadPhaseRules(path = DEFAULT_RULES_FILE): CompiledRules {
  const fail = (detail: string): never => {
    throw new StallscopeError('CONFIG_PHASE_RULES', `${path}: ${detail}`, 'evidence.serverStacks.rulesFile');
  };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    return fail((e as Error).message);
  }
  if (!check.Check(value)) {
    const e = check.Errors(value)[0];
    return fail(`${e?.instancePath || '/'} ${e?.message ?? 'does not match the rules schema'}`);
  }
  try {
    return compileRules(value);
  } catch (e) {
    return fail((e as Error).message);
  }
}
