// The opened entry's audio (when it kept some) above its lines: the player
// reports the meeting time, the lines mark the word heard then and play from
// a clicked word. The word is found only when the time moves to another word,
// so a long meeting re-renders one line per word, not the transcript per frame.
import { useCallback, useRef, useState } from 'react';
import type { HistoryEntry } from '../../../app/ipc/contract.js';
import { shortClock } from '../../../app/shared/meeting-export.js';
import { EntryPlayer, type PlayerHandle } from './EntryPlayer.js';
import { currentWordKey } from './playhead.js';
import { SegmentList } from './SegmentList.js';

export function EntryTranscript({ e }: { e: HistoryEntry }) {
  const player = useRef<PlayerHandle>(null);
  const [playable, setPlayable] = useState(false);
  const [currentKey, setCurrentKey] = useState<string | null>(null);
  const segments = useRef(e.segments);
  segments.current = e.segments;
  const onTime = useCallback((t: number | null) => setCurrentKey(currentWordKey(segments.current, t)), []);
  const onPlay = useCallback((t: number) => player.current?.seek(t), []);
  return (
    <>
      {e.kind === 'meeting' ? <EntryPlayer ref={player} entryId={e.id} onTime={onTime} onAvailable={setPlayable} /> : null}
      {e.kind === 'meeting' && e.markers?.length ? (
        <>
          <h4 id="entry-markers-title">Markers</h4>
          <ul className="meeting-markers" aria-labelledby="entry-markers-title" data-testid="history-markers">
            {[...e.markers].sort((a, b) => a.at - b.at).map((m) => (
              <li key={`${m.at}-${m.text}`}>
                <span className="muted num">{shortClock(m.at)}</span> {m.text}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h4>Segments</h4>
      <SegmentList segments={e.segments} entryId={e.live ? undefined : e.id} onPlay={playable ? onPlay : null} currentKey={playable ? currentKey : null} />
    </>
  );
}
