/**
 * A banner while the dashboard's database is away (docs/design.md#outage-buffer): reports are being buffered and
 * written when it is back; past the buffer they are refused and the reporters keep them. From the store's health
 * the live client put in the state.
 */
import { useAppState } from '../hooks/services.ts';
import { storeBannerText } from '../state/storeBanner.ts';

export function StoreBanner() {
  const text = useAppState((s) => storeBannerText(s.store));
  if (!text) return null;
  return (
    <div className="store-banner" data-testid="store-banner" role="alert">
      {text}
    </div>
  );
}
