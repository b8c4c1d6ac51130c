/** The New-run form's target switch keeps what each kind held: the hang preset's fault survives a trip to "url". */
import { describe, expect, it } from 'vitest';
import { CODE2WAV_HANG } from '#shared/config/presets.ts';
import { switchTarget, TARGET_DEFAULTS } from '#web/state/targetSwitch.ts';

describe('switchTarget', () => {
  const hang = CODE2WAV_HANG.spec.target;

  // Caught: a switch that builds each kind from its defaults gives back an embedded target with no faults,
  // and the run passes clean.
  it('gives back the preset’s embedded target, faults and watchdog, after a URL and back', () => {
    const toUrl = switchTarget(hang, 'url', {});
    expect(toUrl.target).toEqual(TARGET_DEFAULTS.url);
    const back = switchTarget(toUrl.target, 'embedded', toUrl.kept);
    expect(back.target).toEqual(hang);
    expect((back.target as { faults: unknown[] }).faults).toEqual([{ phase: 'hift', kind: 'block', after: 3 }]);
    // A copy: editing the restored target leaves the kept one (and the preset) as they were.
    expect(back.target).not.toBe(hang);
  });

  it('keeps the URL typed in, the way back to it, and edits made to either kind', () => {
    const edited = { ...hang, watchdogTimeoutS: 2 };
    const a = switchTarget(edited, 'url', {});
    const typed = { kind: 'url', baseUrl: 'http://gpu-7:8000' };
    const b = switchTarget(typed, 'embedded', a.kept);
    expect(b.target).toEqual(edited);
    const c = switchTarget(b.target, 'url', b.kept);
    expect(c.target).toEqual(typed);
  });

  it('starts a kind never shown from its defaults, and picking the kind shown changes nothing', () => {
    const url = { kind: 'url', baseUrl: 'http://x:1' };
    expect(switchTarget(url, 'embedded', {}).target).toEqual(TARGET_DEFAULTS.embedded);
    const same = switchTarget(hang, 'embedded', {});
    expect(same.target).toBe(hang);
    expect(same.kept).toEqual({});
  });
});
