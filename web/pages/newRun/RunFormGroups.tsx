/** Every RunSpec field, grouped: target, dataset, dispatch, timeouts and breaker, watchdog and faults, thresholds. */
import type { RunSpec } from '../../../shared/schemas.ts';
import { DatasetGroup } from './DatasetGroup.tsx';
import { DispatchGroup } from './DispatchGroup.tsx';
import { FaultsGroup } from './FaultsGroup.tsx';
import { TargetGroup } from './TargetGroup.tsx';
import { ThresholdsGroup } from './ThresholdsGroup.tsx';
import { TimeoutsGroup } from './TimeoutsGroup.tsx';

export function RunFormGroups({ spec }: { spec: RunSpec }) {
  return (
    <>
      <TargetGroup spec={spec} />
      <DatasetGroup spec={spec} />
      <DispatchGroup spec={spec} />
      <TimeoutsGroup spec={spec} />
      {spec.target?.kind === 'embedded' && <FaultsGroup spec={spec} />}
      <ThresholdsGroup />
    </>
  );
}
