/** A compared run's name: its label, or its id when it has none. */
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';

export const nameOf = (d: RunDetail) => d.label || d.id;
