// A dictation's final segments with their session times.
import type { HistorySegment } from '../../../app/ipc/contract.js';
import { formatTimestamp } from '../../format.js';

export function SegmentList({ segments }: { segments: readonly HistorySegment[] }) {
  const spoken = segments.filter((s) => s.text.trim());
  if (spoken.length === 0) return <p className="muted">No speech was recognized.</p>;
  return (
    <ol className="segment-list" aria-label="Segments with times">
      {spoken.map((s) => (
        <li key={`${s.speaker ?? ''}${s.segmentId}`} data-testid="history-segment" data-start={s.start} data-end={s.end}>
          <span className="num muted segment-time">
            {formatTimestamp(s.start)}–{formatTimestamp(s.end)}
          </span>
          <span className="segment-text">{s.speaker ? <strong>{s.speaker}: </strong> : null}{s.text}</span>
        </li>
      ))}
    </ol>
  );
}
