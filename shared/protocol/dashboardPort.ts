/**
 * The port `stallscope serve` listens on by default. The dashboard, its
 * command line and the web dev server's proxy (vite.config.ts) must agree.
 */
export const DEFAULT_DASHBOARD_PORT = 7077;
