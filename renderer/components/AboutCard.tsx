// What is running, for bug reports: version, engine build, where the log is.
import { useApp } from '../store/hooks.js';
import { call } from '../store/commands.js';
import { Button } from './Button.js';

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
      {mode === 'electron' ? (
        <Button onClick={() => void call('app:openLogFolder', 'Opening the log folder')}>Open the log folder</Button>
      ) : null}
    </section>
  );
}
