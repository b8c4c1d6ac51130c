/** Pure metric math shared by the engine, the dashboard and the web UI. */
export * from './input.ts';
export * from './stats.ts';
export * from './timeline.ts';
export * from './calculate.ts';
export * from './labels.ts';
