/** Above the timeline: the row count and the zoom buttons (Fit goes back to following the run). */
export function TimelineToolbar({
  rowCount,
  zoomed,
  zoomBy,
  fit,
}: {
  rowCount: number;
  zoomed: boolean;
  zoomBy: (factor: number) => void;
  fit: () => void;
}) {
  return (
    <div className="tl-toolbar">
      <strong>Requests</strong>
      <span className="muted">{rowCount.toLocaleString('en-US')} rows</span>
      <span className="spacer" />
      <button type="button" onClick={() => zoomBy(1.5)} aria-label="Zoom in">
        +
      </button>
      <button type="button" onClick={() => zoomBy(1 / 1.5)} aria-label="Zoom out">
        −
      </button>
      <button type="button" onClick={fit} disabled={!zoomed}>
        {zoomed ? 'Fit' : 'Following'}
      </button>
    </div>
  );
}
