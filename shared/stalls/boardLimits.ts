/**
 * How much one stall board holds (docs/design.md#stall-board): apart from the reply's schema (stallsApi.ts), so the
 * web entry's first reads name them without the schema library in its first script (docs/performance.md#cold-loads).
 */

/** The most runs one board reads: the newest within the filter (a narrower filter reaches further back). */
export const BOARD_MAX_RUNS = 5000;
/**
 * Groups one reply holds unless asked for more (`limit`, up to BOARD_MAX_GROUPS): a year's window has hundreds
 * (852 groups, 7.3 MB of JSON at 20,000 runs), and a reader looks at the most frequent first — a screen or two of
 * them; the page asks for more on demand. 100 by default made each count ~0.9 MB and ~1 s of the page's rendering
 * at a year (docs/performance.md#year-of-history).
 */
export const BOARD_DEFAULT_GROUPS = 25;
export const BOARD_MAX_GROUPS = 1000;
