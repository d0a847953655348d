// What is running, for bug reports: version, engine build, where the log is,
// and the diagnostics report (system, devices, model, settings, log tail;
// never transcript text) to copy or save.
import { useApp } from '../store/hooks.js';
import { call } from '../store/commands.js';
import { saveTextFile } from '../download.js';
import { Button } from './Button.js';
import { CopyButton } from './CopyButton.js';

/** Fetched at each click: the report is a snapshot of now (devices, engine state, the log's end). */
async function diagnosticsText(): Promise<string | null> {
  const report = await call('app:diagnostics', 'Collecting diagnostics');
  return report?.text ?? null;
}

async function saveDiagnostics(): Promise<void> {
  const text = await diagnosticsText();
  if (text === null) return;
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  saveTextFile(`parakeet-diagnostics-${stamp}.txt`, text, 'text/plain');
}

export function AboutCard() {
  const app = useApp((s) => s.engine.app);
  const mode = useApp((s) => s.engine.mode);
  if (!app) return null;
  return (
    <section className="card about" aria-labelledby="about-title">
      <h3 id="about-title">About this installation</h3>
      <dl className="about-list">
        <dt>Version</dt>
        <dd>
          {app.name} {app.version} ({app.mode}, {app.platform}/{app.arch})
        </dd>
        <dt>Engine</dt>
        <dd>
          {app.engineAvailable ? 'available' : 'not built'}
          {app.ggml ? ` · ggml ${app.ggml.version} (${app.ggml.backends.join(', ') || 'CPU'})` : ''}
        </dd>
        <dt>Log file</dt>
        <dd className="mono">{app.logFile}</dd>
        <dt>Data folder</dt>
        <dd className="mono">{app.userDataDir}</dd>
      </dl>
      <p className="hint" id="diagnostics-hint">
        Diagnostics: system, engine build, devices, model, settings and the log&apos;s last lines, for a bug report. No
        transcript text or audio; your home folder is shown as ~.
      </p>
      <div className="row-actions">
        <CopyButton getText={diagnosticsText} label="Copy diagnostics" aria-describedby="diagnostics-hint" />
        <Button onClick={() => void saveDiagnostics()} aria-describedby="diagnostics-hint">
          Save diagnostics
        </Button>
        {mode === 'electron' ? (
          <Button onClick={() => void call('app:openLogFolder', 'Opening the log folder')}>Open the log folder</Button>
        ) : null}
      </div>
    </section>
  );
}
