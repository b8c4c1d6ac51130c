/**
 * A realtime run's sessions (docs/design.md#realtime): one row per
 * WebSocket session with its turns side by side on the run's time axis
 * (0 to `endT`), each turn coloured by its end state and marked at its
 * first audio; clicking a turn opens its request. Draws what it is given
 * (shared/runView/sessions.ts makes the rows).
 */
import type { SessionRow } from '../../../shared/runView/sessions.ts';

const pct = (t: number, endT: number): string => `${Math.min(100, Math.max(0, (t / endT) * 100))}%`;

export function SessionLanes({
  rows,
  endT,
  onSelect,
}: {
  rows: readonly SessionRow[];
  /** Run-clock ms the axis ends at (now, or the run's end). */
  endT: number;
  onSelect: (index: number) => void;
}) {
  const end = Math.max(endT, 1);
  return (
    <section className="sessions" aria-label="Realtime sessions" data-testid="sessions">
      <h3>Sessions</h3>
      {rows.map((s) => (
        <div key={s.session} className="tl-row session-row" data-testid="session-row" data-session={s.session}>
          <div className="tl-label">
            <span className="tl-index">session {s.session}</span>
          </div>
          <div className="tl-track">
            {s.turns.map((t) =>
              t.startT === null ? null : (
                <button
                  type="button"
                  key={t.index}
                  className={`seg session-turn end-${t.status}`}
                  data-testid="session-turn"
                  data-turn={t.turn}
                  data-status={t.status}
                  style={{
                    left: pct(t.startT, end),
                    width: `calc(${pct((t.endT ?? end) - t.startT, end)} + 1px)`,
                  }}
                  title={`turn ${t.turn} (request #${t.index}): ${t.status.replace(/_/g, ' ')}`}
                  onClick={() => onSelect(t.index)}
                >
                  {t.firstAudioT !== null && (
                    <span
                      className="session-audio"
                      style={{ left: pct(t.firstAudioT - t.startT, Math.max((t.endT ?? end) - t.startT, 1)) }}
                    />
                  )}
                </button>
              ),
            )}
          </div>
        </div>
      ))}
    </section>
  );
}
