/** `stallscope token` refusing a malformed --dashboard does not print the admin token in its `?token=`. */
import { describe, expect, it, vi } from 'vitest';
import { run } from '#server/cli/token.ts';

describe('stallscope token and a malformed --dashboard', () => {
  it('names the URL with its token masked', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await run(['list', '--dashboard', 'dash board/?token=adm-5e1b'])).not.toBe(0);
      const printed = err.mock.calls.flat().join('\n');
      expect(printed).toContain("--dashboard is not a URL: 'dash board/?token=***'");
      expect(printed).not.toContain('adm-5e1b');
    } finally {
      err.mockRestore();
    }
  });
});
