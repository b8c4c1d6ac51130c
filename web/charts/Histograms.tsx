/** Distributions of one run: a latency histogram per metric, and the Seed-TTS gate's WER per utterance. */
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { WerBin } from '../state/accuracy.ts';
import type { Bin } from '../state/selectors.ts';
import { AXIS, BAR_CURSOR, MARGIN, TIP } from './chartStyle.ts';
import { count } from '../../shared/format.ts';

const binRange = (b: Bin | undefined) => (b ? `${count(b.from)}–${count(b.to)} ms` : '');

export function LatencyHistogram({ title, bins, live }: { title: string; bins: readonly Bin[]; live: boolean }) {
  return (
    <figure className="chart small">
      <figcaption>{title}</figcaption>
      {bins.length === 0 ? (
        <p className="muted chart-empty">{live ? 'No completed requests yet.' : 'No request completed in this run.'}</p>
      ) : (
        <ResponsiveContainer width="100%" height={150}>
          <BarChart data={bins} margin={MARGIN}>
            <CartesianGrid stroke="var(--grid)" vertical={false} />
            <XAxis dataKey="label" tick={AXIS} interval="preserveStartEnd" />
            <YAxis allowDecimals={false} tick={AXIS} />
            <Tooltip
              {...TIP}
              cursor={BAR_CURSOR}
              labelFormatter={(_, p) => binRange(p[0]?.payload as Bin | undefined)}
            />
            <Bar dataKey="count" name="requests" fill="var(--c-text)" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}

export function WerHistogram({ bins }: { bins: readonly WerBin[] }) {
  return (
    <figure className="chart small" data-testid="wer-histogram">
      <figcaption>WER per utterance (Seed-TTS gate)</figcaption>
      <ResponsiveContainer width="100%" height={150}>
        <BarChart data={bins} margin={MARGIN}>
          <CartesianGrid stroke="var(--grid)" vertical={false} />
          <XAxis dataKey="label" tick={AXIS} interval="preserveStartEnd" />
          <YAxis allowDecimals={false} tick={AXIS} />
          <Tooltip {...TIP} />
          <Bar dataKey="count" name="utterances" fill="var(--c-completed)" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
