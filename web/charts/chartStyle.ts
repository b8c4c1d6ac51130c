/** The look the run charts share: axis text, tooltip panel, hover cursors, plot margins. */
export const AXIS = { stroke: 'var(--muted)', fontSize: 11 };
export const TIP = {
  contentStyle: { background: 'var(--panel)', border: '1px solid var(--border)', color: 'var(--fg)' },
};
// Recharts' default hover band is a light grey (#ccc) block, glaring on the dark panel: a tint of the text colour instead.
export const BAR_CURSOR = { fill: 'var(--hover)', stroke: 'none' };
export const LINE_CURSOR = { stroke: 'var(--muted)' };
export const MARGIN = { top: 4, right: 8, bottom: 0, left: -16 };

/** A time-axis tick in seconds, without trailing zeros. */
export const fmtS = (s: number) => `${Number(s.toFixed(3))}s`;
/** A tooltip's time label. */
export const fmtTipS = (s: unknown) => `${Number(s).toFixed(1)} s`;
