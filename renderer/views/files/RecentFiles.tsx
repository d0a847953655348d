// The last few transcripts of this window (newest first), to go back to one
// and export it again; shown once there is more than one.
import { fileName, formatDuration } from '../../format.js';
import * as actions from '../../store/actions.js';
import { MAX_FILE_RESULTS } from '../../store/files.js';
import { useApp } from '../../store/hooks.js';

const time = (at: number) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

export function RecentFiles() {
  const results = useApp((s) => s.files.results);
  const shown = useApp((s) => s.files.shown);
  if (results.length < 2) return null;
  return (
    <section className="card" aria-labelledby="recent-files-title">
      <h3 id="recent-files-title">Recent transcripts</h3>
      <p className="muted">The last {MAX_FILE_RESULTS} stay here until this window is closed or reloaded.</p>
      <ul className="recent-files">
        {results.map((r) => (
          <li key={r.key}>
            <button
              type="button"
              className="recent-file"
              aria-current={r.key === shown ? 'true' : undefined}
              onClick={() => actions.showFileResult(r.key)}
              data-testid="recent-file"
            >
              <strong>{fileName(r.transcript.path)}</strong>
              <span className="muted">
                {' '}· {formatDuration(r.transcript.durationSec)} · {r.transcript.words.length} words · {time(r.finishedAt)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
