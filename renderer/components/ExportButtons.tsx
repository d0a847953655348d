// The row of export buttons (.txt .srt .vtt .json) under a transcript; the
// caller says what each one saves.
import type { ExportFormat } from '../../app/shared/subtitles.js';
import { saveTextFile } from '../download.js';
import { EXPORT_KINDS } from '../export.js';
import { Button } from './Button.js';

export interface ExportButtonsProps {
  /** The file for a format: its name and content, built when the button is pressed. */
  file: (format: ExportFormat) => { name: string; content: string };
}

export function ExportButtons({ file }: ExportButtonsProps) {
  return (
    <div className="row-actions" role="group" aria-label="Export">
      <span className="muted">Export</span>
      {EXPORT_KINDS.map((k) => (
        <Button
          key={k.format}
          onClick={() => {
            const { name, content } = file(k.format);
            saveTextFile(name, content, k.mime);
          }}
        >
          {/* The name is the visible text plus hidden words (an aria-label that hides the visible text fails
              label-content-name-mismatch, issue 44 item 12). */}
          <span className="visually-hidden">Export as {k.description} (</span>
          {k.label}
          <span className="visually-hidden">)</span>
        </Button>
      ))}
    </div>
  );
}
