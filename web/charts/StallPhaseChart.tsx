/** Stall reports per Code2Wav phase, one bar per run: "in the failing runs, where did Code2Wav stall?" */
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { C2W_PHASES } from '../../shared/types.ts';

const COLORS = [
  'var(--c-text)',
  'var(--c-timed_out)',
  'var(--c-audio)',
  'var(--c-completed)',
  'var(--c-failed)',
  'var(--c-inflight)',
];

export function StallPhaseChart({ runs }: { runs: { name: string; byPhase: Record<string, number> }[] }) {
  const extra = [...new Set(runs.flatMap((r) => Object.keys(r.byPhase)))].filter(
    (p) => !(C2W_PHASES as readonly string[]).includes(p),
  );
  const data = [...C2W_PHASES, ...extra].map((phase) => {
    const row: Record<string, string | number> = { phase: phase.replace(/_/g, ' ') };
    runs.forEach((r, i) => (row[`r${i}`] = r.byPhase[phase] ?? 0));
    return row;
  });
  return (
    <figure className="chart wide" data-testid="stall-phase-chart">
      <figcaption>Stall reports per Code2Wav phase</figcaption>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: -16 }}>
          <CartesianGrid stroke="var(--grid)" vertical={false} />
          <XAxis dataKey="phase" tick={{ fontSize: 11, stroke: 'var(--muted)' }} />
          <YAxis allowDecimals={false} tick={{ fontSize: 11, stroke: 'var(--muted)' }} />
          <Tooltip
            contentStyle={{ background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--fg)' }}
            cursor={{ fill: 'var(--hover)', stroke: 'none' }}
          />
          {/* Recharts sorts legend items by name unless told: keep the runs in the columns' order (r0, r1, …). */}
          <Legend wrapperStyle={{ fontSize: 11 }} itemSorter={(item) => Number(String(item.dataKey).slice(1))} />
          {runs.map((r, i) => (
            <Bar key={i} dataKey={`r${i}`} name={r.name} fill={COLORS[i % COLORS.length]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
