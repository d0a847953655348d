// Opens a local .gguf in the engine directly (no copy into the models folder).
// Electron: the native file dialog (models:pickFile). Web mode: the browser
// cannot hand out file paths, so the user types one.
import { useState, type FormEvent } from 'react';
import { loadModelFile, pickModelFile } from '../store/commands.js';
import { useApp } from '../store/hooks.js';
import { Button } from './Button.js';

export function ModelPicker({ idPrefix = 'picker' }: { idPrefix?: string }) {
  const mode = useApp((s) => s.engine.mode ?? s.engine.app?.mode ?? 'web');
  const loading = useApp((s) => s.engine.status?.state === 'loading');
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);

  const load = async (p: string) => {
    setBusy(true);
    try {
      await loadModelFile(p);
    } finally {
      setBusy(false);
    }
  };

  if (mode === 'electron') {
    return (
      <Button
        disabled={busy || loading}
        onClick={async () => {
          const picked = await pickModelFile();
          if (picked) await load(picked);
        }}
      >
        Open a model file…
      </Button>
    );
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (path.trim()) void load(path.trim());
  };
  return (
    <form className="inline-form" onSubmit={submit}>
      <label htmlFor={`${idPrefix}-path`}>Model file (.gguf) path on this machine</label>
      <div className="inline-form-row">
        <input
          id={`${idPrefix}-path`}
          type="text"
          spellCheck={false}
          autoComplete="off"
          placeholder="/home/me/models/parakeet-tdt_ctc-110m-q8_0.gguf"
          value={path}
          onChange={(e) => setPath(e.target.value)}
        />
        <Button type="submit" disabled={busy || loading || !path.trim()}>
          {busy || loading ? 'Loading…' : 'Open model'}
        </Button>
      </div>
    </form>
  );
}
