// Opens a local .gguf in the engine directly (no copy into the models folder).
// Electron: the native file dialog (models:pickFile). Web mode: the browser
// cannot hand out file paths, so the user types one. Why it failed shows
// under the button, until the next try or edit (not a banner above the view).
import { useState, type FormEvent } from 'react';
import { loadModelFile, pickModelFile } from '../store/commands.js';
import { useApp } from '../store/hooks.js';
import { Button } from './Button.js';

export function ModelPicker({ idPrefix = 'picker' }: { idPrefix?: string }) {
  const mode = useApp((s) => s.engine.mode ?? s.engine.app?.mode ?? 'web');
  const loading = useApp((s) => s.engine.status?.state === 'loading');
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const load = async (p: string) => {
    setBusy(true);
    setFailure(null);
    try {
      setFailure(await loadModelFile(p));
    } finally {
      setBusy(false);
    }
  };
  const outcome = failure ? (
    <p className="inline-error" role="alert" data-testid={`${idPrefix}-error`}>
      {failure}
    </p>
  ) : null;

  if (mode === 'electron') {
    return (
      <>
        <Button
          disabled={busy || loading}
          onClick={async () => {
            const picked = await pickModelFile();
            if (picked) await load(picked);
          }}
        >
          Open a model file…
        </Button>
        {outcome}
      </>
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
          onChange={(e) => {
            setPath(e.target.value);
            setFailure(null);
          }}
        />
        <Button type="submit" disabled={busy || loading || !path.trim()}>
          {busy || loading ? 'Loading…' : 'Open model'}
        </Button>
      </div>
      {outcome}
    </form>
  );
}
