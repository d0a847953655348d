// The running job: a progress bar (role progressbar, value in percent for
// assistive technology), the time it has taken so far and Cancel; afterwards,
// a line that says it was cancelled or failed.
import { useEffect, useState } from 'react';
import { Button } from '../../components/Button.js';
import { fileName, formatBytes } from '../../format.js';
import { progressFigures } from './progress-figures.js';
import { cancelFileJob } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';

/** Milliseconds since the job started (kept in the store: switching views does not reset it), refreshed twice a second. */
function useElapsed(running: boolean, startedAt: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);
  return running && startedAt !== null ? Math.max(0, now - startedAt) : 0;
}

export function FileProgress() {
  const job = useApp((s) => s.files.job);
  const running = job.phase === 'running';
  const elapsed = useElapsed(running, job.startedAt);
  if (job.phase !== 'running' && job.phase !== 'cancelled' && job.phase !== 'failed') return null;
  const name = job.upload?.name ?? fileName(job.path);
  // Web mode sends the file first: the bar shows the bytes on the server until every one is there.
  const uploading = running && job.upload !== null && !job.upload.done;
  const fraction = uploading && job.upload ? job.upload.receivedBytes / job.upload.sizeBytes : job.fraction;
  const percent = Math.floor(fraction * 100);

  return (
    <section className="card file-progress" aria-label={`Transcription of ${name}`} data-testid="file-job" data-phase={job.phase}>
      <div className="download-head">
        <strong>{name}</strong>
        <span className="download-state" role="status">
          {running ? (job.cancel !== 'none' ? 'Cancelling…' : uploading ? 'Uploading' : 'Transcribing') : job.phase === 'cancelled' ? 'Cancelled' : 'Failed'}
        </span>
      </div>
      {running ? (
        <>
          <progress
            className="progress"
            role="progressbar"
            max={1}
            value={fraction}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            aria-label={uploading ? `Upload progress of ${name}` : `Transcription progress of ${name}`}
            data-testid="file-progress"
          />
          <div className="row-actions file-progress-row">
            <span className="download-figures muted" data-testid="file-figures">
              {uploading && job.upload
                ? `${percent} % · ${formatBytes(job.upload.receivedBytes)} of ${formatBytes(job.upload.sizeBytes)} uploaded`
                : progressFigures(job, elapsed)}
            </span>
            <Button variant="quiet" onClick={() => void cancelFileJob()} disabled={job.cancel !== 'none'} aria-label={`Cancel ${uploading ? 'uploading' : 'transcribing'} ${name}`}>
              Cancel
            </Button>
          </div>
        </>
      ) : job.phase === 'cancelled' ? (
        <p className="muted">Cancelled before it finished; nothing was kept. Transcribe again whenever you like.</p>
      ) : (
        <p className="download-error">{job.error}</p>
      )}
    </section>
  );
}
