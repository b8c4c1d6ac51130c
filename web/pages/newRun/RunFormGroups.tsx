/** Every RunSpec field, grouped: target, dataset, dispatch, timeouts and breaker, watchdog and faults, thresholds. */
import type { RunSpec } from '../../../shared/config/runSpec.ts';
import { DatasetGroup } from './DatasetGroup.tsx';
import { DispatchGroup } from './DispatchGroup.tsx';
import { FaultsGroup } from './FaultsGroup.tsx';
import { TargetGroup } from './TargetGroup.tsx';
import { ThresholdsGroup } from './ThresholdsGroup.tsx';
import { TimeoutsGroup } from './TimeoutsGroup.tsx';
import type { TargetKind } from '../../state/targetSwitch.ts';

export function RunFormGroups({ spec, pickTarget }: { spec: RunSpec; pickTarget: (kind: TargetKind) => void }) {
  return (
    <>
      <TargetGroup spec={spec} pickTarget={pickTarget} />
      <DatasetGroup spec={spec} />
      <DispatchGroup spec={spec} />
      <TimeoutsGroup spec={spec} />
      {spec.target?.kind === 'embedded' && <FaultsGroup spec={spec} />}
      <ThresholdsGroup />
    </>
  );
}
