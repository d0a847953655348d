// One finished transcript: what was transcribed, how long it was, how fast
// and where it ran; the text (Copy), exports and the words with their times.
import type { ExportFormat } from '../../../app/shared/subtitles.js';
import { Button } from '../../components/Button.js';
import { CopyButton } from '../../components/CopyButton.js';
import { saveTextFile } from '../../download.js';
import { EXPORT_KINDS, exportContent, exportFileName } from '../../export.js';
import { fileName, formatDuration, formatMs, formatRealTime } from '../../format.js';
import { shownResult } from '../../store/files.js';
import { useApp } from '../../store/hooks.js';
import type { FileResultTranscript } from '../../store/types.js';
import { WordTable } from './WordTable.js';

function save(t: FileResultTranscript, format: ExportFormat, mime: string): void {
  saveTextFile(exportFileName(t.path, format), exportContent(format, t), mime);
}

function Facts({ t }: { t: FileResultTranscript }) {
  const rows: [string, string, string][] = [
    ['duration', 'Audio', formatDuration(t.durationSec)],
    ['elapsed', 'Transcribed in', formatMs(t.elapsedMs)],
    ['speed', 'Speed', formatRealTime(t.durationSec, t.elapsedMs)],
    ['devices', 'Ran on', t.devicesRan.length ? t.devicesRan.join(' + ') : 'unknown'],
  ];
  return (
    <dl className="file-facts">
      {rows.map(([key, label, value]) => (
        <div key={key} className="latency-row" data-testid={`file-${key}`}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function FileResult() {
  const result = useApp((s) => shownResult(s.files));
  if (!result) return null;
  const t = result.transcript;
  const name = fileName(t.path);
  return (
    <section className="card file-result" aria-labelledby="file-result-title" data-testid="file-result" data-job={t.jobId}>
      <div className="card-title-row file-result-head">
        <div>
          <h3 id="file-result-title" data-testid="file-name">{name}</h3>
          <p className="muted mono file-path">{t.path}</p>
        </div>
        <div className="row-actions" role="group" aria-label="Export">
          <span className="muted">Export</span>
          {EXPORT_KINDS.map((k) => (
            <Button key={k.format} onClick={() => save(t, k.format, k.mime)} aria-label={`Export as ${k.description} (${k.label})`}>
              {k.label}
            </Button>
          ))}
        </div>
      </div>
      <Facts t={t} />
      <div className="card-title-row">
        <h4>Text</h4>
        <CopyButton getText={() => t.text} disabled={!t.text} />
      </div>
      <div className="transcript file-text" data-testid="file-text" tabIndex={0} role="region" aria-label="Transcribed text (scrollable)">
        {t.text ? t.text : <span className="transcript-empty">No speech was recognized in this file.</span>}
      </div>
      <h4>Words</h4>
      <WordTable key={result.key} words={t.words} />
    </section>
  );
}
