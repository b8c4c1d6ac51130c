/**
 * How a page names a run: by where it ran (`runTitle`: "build 14607 · mi325-agent-2 · minicpmo-accuracy"),
 * else by its label, else by its id — the id as written, shown beside a title, never twice.
 */
import { runTitle } from '../../shared/runInfo/runTitle.ts';

interface Named {
  id: string;
  label?: string | null;
  metadata?: Readonly<Record<string, string | undefined>>;
}

export const runName = (r: Named): string => runTitle(r.metadata) ?? (r.label || r.id);

/** Whether the id must be shown beside the name (the name is not the id itself). */
export const idBeside = (r: Named): boolean => runName(r) !== r.id;

/** A commit as people read it: a 40-hex (or longer) id shortened to 12; the full one goes in a title. */
export const shortCommit = (c: string): string => (/^[0-9a-f]{13,}$/i.test(c) ? c.slice(0, 12) : c);
