// Files: transcribe a recording on this machine (the engine process reads the
// WAV itself), follow its progress, then read, copy and export the result.
import { FileForm } from './files/FileForm.js';
import { FileProgress } from './files/FileProgress.js';
import { FileResult } from './files/FileResult.js';
import { RecentFiles } from './files/RecentFiles.js';

export function FilesView() {
  return (
    <section className="view view-files" aria-labelledby="files-title">
      <header className="view-header">
        <h2 id="files-title">Files</h2>
        <p className="muted">Meetings and recordings: text with word timings and subtitles, made on this machine.</p>
      </header>
      <FileForm />
      <FileProgress />
      <FileResult />
      <RecentFiles />
    </section>
  );
}
