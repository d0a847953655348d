// An entry's lines with their times (and speakers). With audio, each line's
// words play from where they are and the word being heard is marked; a line
// can be corrected in place (SegmentEditor). Keyboard: Tab reaches one word
// of the transcript, the arrow keys (and Home, End) move between words, Enter
// or Space plays from it.
import { useCallback, useState, type KeyboardEvent } from 'react';
import type { HistorySegment } from '../../../app/ipc/contract.js';
import { Button } from '../../components/Button.js';
import { formatTimestamp } from '../../format.js';
import { SegmentEditor } from './SegmentEditor.js';
import { SegmentWords } from './SegmentWords.js';
import { speakersOf } from '../../../app/shared/diarization.js';

interface Props {
  segments: readonly HistorySegment[];
  /** Set when lines may be corrected (a finished dictation or meeting). */
  entryId?: string;
  /** Play from a meeting time (null: the entry has no audio). */
  onPlay?: ((t: number) => void) | null;
  /** "segment index:word index" heard now. */
  currentKey?: string | null;
}

function moveFocus(e: KeyboardEvent<HTMLOListElement>): void {
  const target = e.target as HTMLElement;
  if (!target.dataset.word) return;
  const words = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button[data-word]')];
  const at = words.indexOf(target as HTMLButtonElement);
  const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: words.length - 1 }[e.key];
  if (next === undefined || !words[next]) return;
  e.preventDefault();
  words[next].focus();
}

/** The line's speaker: its track label, with the diarized speakers of its words ("Others (Ana, Speaker 2)"). */
function segmentLabel(s: HistorySegment): string {
  const named = speakersOf([{ words: s.words }]);
  return named.length ? `${s.speaker ?? ''} (${named.join(', ')})`.trim() : (s.speaker ?? '');
}

export function SegmentList({ segments, entryId, onPlay, currentKey = null }: Props) {
  const [editing, setEditing] = useState<number | null>(null);
  const [tabStop, setTabStop] = useState<string | null>(null);
  const onWord = useCallback((t: number, key: string) => {
    setTabStop(key);
    onPlay?.(t);
  }, [onPlay]);
  const spoken = segments.map((s, index) => ({ s, index })).filter(({ s }) => s.text.trim() || editing === s.segmentId);
  if (spoken.length === 0) return <p className="muted">No speech was recognized.</p>;
  const firstWord = spoken.find(({ s }) => s.words.length > 0);
  const stop = tabStop ?? (firstWord ? `${firstWord.index}:0` : null);
  const [cs, cw] = (currentKey ?? '-1:-1').split(':').map(Number) as [number, number];
  const [ts, tw] = (stop ?? '-1:-1').split(':').map(Number) as [number, number];
  return (
    <ol className="segment-list" aria-label="Segments with times" onKeyDown={onPlay ? moveFocus : undefined}
      onFocus={(e) => {
        const key = (e.target as HTMLElement).dataset.word;
        if (key) setTabStop(key);
      }}
    >
      {spoken.map(({ s, index }) => (
        <li key={`${s.speaker ?? ''}${s.segmentId}`} data-testid="history-segment" data-start={s.start} data-end={s.end} data-segment-id={s.segmentId}>
          {onPlay ? (
            <button type="button" className="num muted segment-time link-button" onClick={() => onPlay(s.start)} aria-label={`${formatTimestamp(s.start)}–${formatTimestamp(s.end)}, play from ${formatTimestamp(s.start)}`}>
              {formatTimestamp(s.start)}–{formatTimestamp(s.end)}
            </button>
          ) : (
            <span className="num muted segment-time">
              {formatTimestamp(s.start)}–{formatTimestamp(s.end)}
            </span>
          )}
          <span className="segment-text">
            {s.speaker ? <strong>{segmentLabel(s)}: </strong> : null}
            {editing === s.segmentId && entryId ? (
              <SegmentEditor entryId={entryId} segmentId={s.segmentId} start={s.start} text={s.text} onDone={() => setEditing(null)} />
            ) : (
              <>
                {onPlay && s.words.length ? (
                  <SegmentWords index={index} words={s.words} current={index === cs ? cw : -1} tabStop={index === ts ? tw : -1} onWord={onWord} />
                ) : (
                  <span data-testid="history-segment-text">{s.text}</span>
                )}
                {s.edited ? <span className="badge" title="Corrected by you; unchanged words keep their times">edited</span> : null}
                {entryId ? (
                  <Button variant="quiet" className="segment-edit" onClick={() => setEditing(s.segmentId)} aria-label={`Edit the line at ${formatTimestamp(s.start)}`} data-testid="history-segment-edit">
                    Edit
                  </Button>
                ) : null}
              </>
            )}
          </span>
        </li>
      ))}
    </ol>
  );
}
