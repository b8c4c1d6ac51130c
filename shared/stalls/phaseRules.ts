/**
 * Phase inference for py-spy captures (docs/design.md#server-stacks): which
 * Code2Wav phase a server thread was in, from the function and file names
 * of its frames. The rules come from a JSON file (`--server-phase-rules`,
 * defaults in server/engine/probes/serverStacks/defaultPhaseRules.json, written for
 * vLLM-Omni's MiniCPM-o 4.5 Code2Wav). Pure: no I/O.
 *
 * A thread's phase is given by its innermost frame that matches a rule (the
 * top of the stack is where it is stuck; `decode_batch` further down matches
 * nothing, it is the caller of every phase). Among threads, the one whose
 * stack also holds a stage frame (`decode_batch` in `batched_token2wav.py`)
 * wins, then an active or GIL-holding one, then the first in tree order.
 */
import { Type, type Static } from 'typebox';
import type { PhaseInference, ServerProcess, StackFrame } from './stallReport.ts';

const Pattern = Type.String({ minLength: 1, maxLength: 500 });

export const PhaseRuleSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    phase: Type.String({ minLength: 1, maxLength: 64 }),
    /** Regular expression (JavaScript syntax, case-insensitive) on the frame's function name. */
    function: Type.Optional(Pattern),
    /** Regular expression on the frame's file path. Both given: both must match. */
    file: Type.Optional(Pattern),
    /** Why this name means this phase (shown nowhere; for the person editing the file). */
    why: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type PhaseRule = Static<typeof PhaseRuleSchema>;

const FrameMatcherSchema = Type.Object(
  { function: Type.Optional(Pattern), file: Type.Optional(Pattern) },
  { additionalProperties: false },
);

export const PhaseRulesFileSchema = Type.Object(
  {
    version: Type.Literal(1),
    /** Frames that mark a Code2Wav stage thread (preferred when several threads match a rule). */
    stage: Type.Optional(Type.Array(FrameMatcherSchema, { maxItems: 64 })),
    rules: Type.Array(PhaseRuleSchema, { maxItems: 500 }),
  },
  { additionalProperties: false },
);
export type PhaseRulesFile = Static<typeof PhaseRulesFileSchema>;

interface CompiledMatcher {
  fn: RegExp | null;
  file: RegExp | null;
}
export interface CompiledRule extends CompiledMatcher {
  id: string;
  phase: string;
}
export interface CompiledRules {
  rules: CompiledRule[];
  stage: CompiledMatcher[];
}

function regex(src: string | undefined, where: string): RegExp | null {
  if (src === undefined) return null;
  try {
    return new RegExp(src, 'i');
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`, { cause: e });
  }
}

/** Compiles a validated rules file; throws naming the rule whose pattern is not a regular expression. */
export function compileRules(file: PhaseRulesFile): CompiledRules {
  const seen = new Set<string>();
  const rules = file.rules.map((r, i) => {
    if (seen.has(r.id)) throw new Error(`rules[${i}]: id '${r.id}' is used twice`);
    seen.add(r.id);
    if (r.function === undefined && r.file === undefined)
      throw new Error(`rules[${i}] (${r.id}): give a function or a file pattern`);
    return {
      id: r.id,
      phase: r.phase,
      fn: regex(r.function, `rules[${i}] (${r.id}).function`),
      file: regex(r.file, `rules[${i}] (${r.id}).file`),
    };
  });
  const stage = (file.stage ?? []).map((m, i) => ({
    fn: regex(m.function, `stage[${i}].function`),
    file: regex(m.file, `stage[${i}].file`),
  }));
  return { rules, stage };
}

function matches(m: CompiledMatcher, f: StackFrame): boolean {
  if (!m.fn && !m.file) return false;
  return (!m.fn || m.fn.test(f.function)) && (!m.file || m.file.test(f.file));
}

/** The rule matched by a thread's innermost matching frame (frames top first), or null. */
export function threadPhase(
  frames: readonly StackFrame[],
  rules: CompiledRules,
): { rule: CompiledRule; frameIndex: number } | null {
  for (let i = 0; i < frames.length; i++) {
    const rule = rules.rules.find((r) => matches(r, frames[i]));
    if (rule) return { rule, frameIndex: i };
  }
  return null;
}

/** Whether a thread's stack runs Code2Wav (holds a stage frame). */
export function isStageThread(frames: readonly StackFrame[], rules: CompiledRules): boolean {
  return frames.some((f) => rules.stage.some((m) => matches(m, f)));
}

/** The phase of the whole capture: the best-ranked matching thread (see the file comment). */
export function inferPhase(processes: readonly ServerProcess[], rules: CompiledRules): PhaseInference | null {
  let best: { score: number; inf: PhaseInference } | null = null;
  for (const p of processes) {
    for (const t of p.threads) {
      const m = threadPhase(t.frames, rules);
      if (!m) continue;
      const score = (isStageThread(t.frames, rules) ? 2 : 0) + (t.active || t.ownsGil ? 1 : 0);
      if (best && best.score >= score) continue;
      best = {
        score,
        inf: {
          phase: m.rule.phase,
          rule: m.rule.id,
          pid: p.pid,
          tid: t.tid,
          threadName: t.name,
          frame: t.frames[m.frameIndex],
          frameIndex: m.frameIndex,
        },
      };
    }
  }
  return best?.inf ?? null;
}
