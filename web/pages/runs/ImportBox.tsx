/** Import a vLLM (-Omni) result file, JSON or JSON lines, by file picker or by dropping it here. */
import { useRef, useState } from 'react';
import { importResult } from '../../api/rest.ts';
import { importMessage, type ImportedRunNote } from '../../state/importMessage.ts';

export function ImportBox({ onImported }: { onImported: (ids: string[], message: string) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function send(files: FileList | null) {
    if (!files || files.length === 0) return;
    setBusy(true);
    setError(null);
    const notes: ImportedRunNote[] = [];
    try {
      for (const file of Array.from(files)) {
        const reply = await importResult(await file.text(), file.name);
        notes.push(...reply.runs);
      }
      onImported(
        notes.map((r) => r.id),
        importMessage(notes),
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  }

  return (
    <div
      className={`dropzone${over ? ' over' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void send(e.dataTransfer.files);
      }}
      data-testid="import-drop"
    >
      <span>Drop a vLLM result JSON (or JSON lines) here, or</span>
      <label className="button">
        {busy ? 'Importing…' : 'Choose file…'}
        <input
          ref={input}
          type="file"
          accept=".json,.jsonl,application/json"
          multiple
          className="sr-only"
          onChange={(e) => void send(e.target.files)}
          data-testid="import-file"
        />
      </label>
      {error && (
        <span className="field-error" role="alert">
          Import failed: {error}
        </span>
      )}
    </div>
  );
}
