/** A compared run's name: where it ran (runTitle), else its label, else its id (web/state/runName.ts). */
import type { RunDetail } from '../../../shared/protocol/apiSchemas.ts';
import { runName } from '../../state/runName.ts';

export const nameOf = (d: RunDetail) => runName(d);
