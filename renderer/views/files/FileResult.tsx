// One finished transcript: what was transcribed, how long it was, how fast
// and where it ran; the text (Copy), exports and the words with their times.
import { CopyButton } from '../../components/CopyButton.js';
import { ExportButtons } from '../../components/ExportButtons.js';
import { FactList, type Fact } from '../../components/FactList.js';
import { exportContent, exportFileName } from '../../export.js';
import { formatDuration, formatMs, formatRealTime, formatSpeechCut } from '../../format.js';
import { shownResult } from '../../store/files.js';
import { useApp } from '../../store/hooks.js';
import type { FileResultTranscript } from '../../store/types.js';
import { WordTable } from './WordTable.js';

function Facts({ t }: { t: FileResultTranscript }) {
  const rows: Fact[] = [
    ['duration', 'Audio', formatDuration(t.durationSec)],
    ['elapsed', 'Transcribed in', formatMs(t.elapsedMs)],
    ['speed', 'Speed', formatRealTime(t.durationSec, t.elapsedMs)],
    ['devices', 'Ran on', t.devicesRan.length ? t.devicesRan.join(' + ') : 'unknown'],
    ...(t.speechCut ? [['speech', 'Speech found by', formatSpeechCut(t.speechCut, t.durationSec)] satisfies Fact] : []),
  ];
  return <FactList facts={rows} testIdPrefix="file" className="file-facts" />;
}

export function FileResult() {
  const result = useApp((s) => shownResult(s.files));
  if (!result) return null;
  const t = result.transcript;
  const name = result.name;
  return (
    <section className="card file-result" aria-labelledby="file-result-title" data-testid="file-result" data-job={t.jobId}>
      <div className="card-title-row file-result-head">
        <div>
          <h3 id="file-result-title" data-testid="file-name">{name}</h3>
          {/* An upload's copy on the server is deleted once transcribed: its path means nothing to the user. */}
          {result.uploaded ? (
            <p className="muted" data-testid="file-origin">Sent from this browser</p>
          ) : (
            <p className="muted mono file-path" data-testid="file-origin">{t.path}</p>
          )}
        </div>
        <ExportButtons file={(format) => ({ name: exportFileName(name, format), content: exportContent(format, t, { name, path: result.uploaded ? null : t.path }) })} />
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
