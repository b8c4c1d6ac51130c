/** Events as a protocol-3 reporter posted them and a store of that age holds them (docs/design.md#legacy-names). */
import type { RunEvent } from '#shared/protocol/protocol.ts';

/** The same events under the names of protocol 3 and before. */
export function asProtocol3(events: RunEvent[]): Record<string, unknown>[] {
  const json = JSON.stringify(events)
    .replaceAll('"request.unsent"', '"request.not_dispatched"')
    .replaceAll('"requests.unsent"', '"requests.not_dispatched"')
    .replaceAll('"unsent":', '"notDispatched":')
    .replaceAll('"breakerTripped":', '"failFastTripped":');
  return JSON.parse(json) as Record<string, unknown>[];
}
