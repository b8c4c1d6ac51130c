/** Live / reconnecting / offline, from the live client's state in the store. */
import { PROTOCOL_VERSION } from '../../shared/protocol/protocol.ts';
import { useAppState, useServices } from '../hooks/services.ts';

const TEXT = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting', offline: 'offline' } as const;

export function ConnectionIndicator() {
  const { live } = useServices();
  const conn = useAppState((s) => s.connection);
  const attempt = useAppState((s) => s.reconnectAttempt);
  const version = useAppState((s) => s.serverVersion);
  return (
    <div className={`conn conn-${conn}`} data-testid="connection" data-state={conn} role="status" aria-live="polite">
      <span className="conn-dot" aria-hidden="true" />
      {TEXT[conn]}
      {conn === 'reconnecting' && attempt > 1 ? ` (try ${attempt})` : ''}
      {version !== null && version !== PROTOCOL_VERSION && (
        <span className="field-error" title="Reload the page after updating stallscope">
          {' '}
          · server speaks protocol v{version}, this page v{PROTOCOL_VERSION}
        </span>
      )}
      {conn === 'offline' && (
        <button type="button" className="link" onClick={() => live.reconnectNow()}>
          retry now
        </button>
      )}
    </div>
  );
}
