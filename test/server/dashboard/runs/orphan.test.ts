import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('embedded repro server lifetime', () => {
  it('exits on its own when its dashboard is killed with SIGKILL (no orphaned hung target)', async () => {
    const parent = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./orphanParent.ts', import.meta.url))],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((r) => parent.once('exit', r));
    const [pid, url] = await new Promise<[number, string]>((resolve, reject) => {
      let out = '';
      parent.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = /target (\d+) (\S+)/.exec(out);
        if (m) resolve([Number(m[1]), m[2]]);
      });
      parent.once('exit', () => reject(new Error(`parent exited: ${out}`)));
    });
    expect((await fetch(`${url}/health`)).ok).toBe(true);
    // Make its Code2Wav worker spin (the first op faults), as in a real hang.
    const ac = new AbortController();
    const req = fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      signal: ac.signal,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 8,
        stream: true,
        modalities: ['text', 'audio'],
      }),
    }).then(
      (r) => r.body?.cancel(),
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 500));
    parent.kill('SIGKILL');
    await exited;
    const deadline = Date.now() + 10_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
    ac.abort();
    await req;
  }, 25_000);
});
