// Downloads in progress, paused or failed: a progress bar each, speed and
// time left while bytes flow, and the error's next step when one failed.
import type { DownloadSnapshot } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { actionFor } from '../../errors.js';
import { formatBytes, formatEta, formatPercent, formatSpeed } from '../../format.js';
import * as actions from '../../store/actions.js';
import { cancelDownload, pauseDownload, resumeDownload } from '../../store/commands.js';
import { useApp } from '../../store/hooks.js';
import { downloadFraction, visibleDownloads } from '../../store/models.js';

const STATE_TEXT: Record<DownloadSnapshot['state'], string> = {
  queued: 'Waiting',
  downloading: 'Downloading',
  paused: 'Paused',
  verifying: 'Verifying the checksum',
  validating: 'Checking the model loads',
  installed: 'Installed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** A download waiting for its next attempt after a broken connection, in words. */
export function retryText(retrying: NonNullable<DownloadSnapshot['retrying']>, now: number): string {
  const inSec = Math.max(0, Math.ceil((retrying.at - now) / 1000));
  return `The connection failed (${retrying.reason.replace(/\.$/, '')}). Retrying by itself: attempt ${retrying.attempt} of ${retrying.of} ` +
    (inSec > 0 ? `in ${inSec} s.` : 'now.');
}

/** One download: its bar, figures, error and actions (the Models view's list, and first run where the user clicked). */
export function DownloadItem({ d, displayName }: { d: DownloadSnapshot; displayName?: string }) {
  const progress = useApp((s) => s.models.progress[d.id]);
  const name = useApp((s) => s.models.catalog.find((e) => e.id === d.id)?.displayName ?? displayName ?? d.id);
  const fraction = downloadFraction(d);
  const label = `${name} (${d.file})`;
  const flowing = d.state === 'downloading';
  const resumable = d.state === 'paused' || d.state === 'failed';
  return (
    <li className={`download download-${d.state}`} data-testid="download" data-id={d.id} data-state={d.state}>
      <div className="download-head">
        <strong>{label}</strong>
        <span className="download-state">{STATE_TEXT[d.state]}</span>
      </div>
      <progress
        className="progress"
        max={1}
        {...(fraction === null ? {} : { value: fraction })}
        aria-label={`Download progress of ${name}`}
        data-testid="download-progress"
      />
      <p className="download-figures muted">
        {formatBytes(d.receivedBytes)} of {formatBytes(d.totalBytes)} {formatPercent(fraction)}
        {flowing && progress ? ` · ${formatSpeed(progress.bytesPerSecond)} · ${formatEta(progress.etaSeconds)}` : ''}
      </p>
      {flowing && d.retrying ? (
        <p className="download-retrying warn-text" role="status" data-testid="download-retrying">
          {retryText(d.retrying, Date.now())}
        </p>
      ) : null}
      {d.error ? (
        <p className="download-error" role="alert">
          {d.error.message}
          {actionFor(d.error.code) ? <span className="banner-action"> {actionFor(d.error.code)}</span> : null}
        </p>
      ) : null}
      <div className="row-actions">
        {flowing || d.state === 'queued' ? (
          <Button onClick={() => void pauseDownload(d.id)} aria-label={`Pause ${name}`}>
            Pause
          </Button>
        ) : null}
        {resumable ? (
          <Button
            variant="primary"
            onClick={() => void resumeDownload(d.id)}
            aria-label={`${d.state === 'failed' ? 'Retry' : 'Resume'} ${name}`}
          >
            {d.state === 'failed' ? 'Retry' : 'Resume'}
          </Button>
        ) : null}
        {d.state !== 'verifying' && d.state !== 'validating' ? (
          <Button variant="quiet" onClick={() => void cancelDownload(d.id)} aria-label={`Cancel ${name}`}>
            Cancel
          </Button>
        ) : null}
        {d.state === 'failed' ? (
          <Button variant="quiet" onClick={() => actions.dismissDownload(d.id)} aria-label={`Dismiss ${name}`}>
            Dismiss
          </Button>
        ) : null}
      </div>
    </li>
  );
}

export function DownloadList() {
  // Select the records, derive the list here: a selector returning a fresh array would re-render forever.
  const downloads = useApp((s) => s.models.downloads);
  const catalog = useApp((s) => s.models.catalog);
  const list = visibleDownloads(downloads, catalog);
  if (list.length === 0) return null;
  return (
    <section className="card" aria-labelledby="downloads-title">
      <h3 id="downloads-title">Downloads</h3>
      <ul className="downloads">
        {list.map((d) => (
          <DownloadItem key={d.id} d={d} />
        ))}
      </ul>
    </section>
  );
}
