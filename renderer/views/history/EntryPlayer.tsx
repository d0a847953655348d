// An entry's audio player: the sources history:media lists (a meeting: both
// tracks mixed on meeting time by default — how the meeting sounded, and the
// timeline every line is timed on — or one track alone, to hear one side
// where both spoke at once), a native <audio> element (its own keyboard
// controls), and the meeting time it is at, reported while it plays (every
// animation frame, so the highlighted word keeps up) and after every seek.
// `seek` (through the handle) jumps to a meeting time and plays from there.
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from 'react';
import type { HistoryMedia, HistoryMediaSource } from '../../../app/ipc/contract.js';
import { api } from '../../store/api.js';
import { audioTimeOf, meetingTimeOf } from './playhead.js';

export interface PlayerHandle {
  /** Plays from meeting time `t` (s). */
  seek(t: number): void;
}

interface Props {
  entryId: string;
  /** Meeting time heard now, or null before anything played. */
  onTime(t: number | null): void;
  /** The entry has playable audio (the transcript then offers its words as buttons). */
  onAvailable(available: boolean): void;
}

export const EntryPlayer = forwardRef<PlayerHandle, Props>(function EntryPlayer({ entryId, onTime, onAvailable }, handle) {
  const [media, setMedia] = useState<HistoryMedia | { error: string } | null>(null);
  const [choice, setChoice] = useState(0);
  const audio = useRef<HTMLAudioElement>(null);
  // Meeting time to seek to once a newly chosen source has loaded (a source switch keeps the place).
  const pending = useRef<number | null>(null);

  useEffect(() => {
    let live = true;
    setMedia(null);
    setChoice(0);
    onAvailable(false);
    void api().invoke('history:media', { id: entryId }).then((r) => {
      if (!live) return;
      setMedia(r.ok ? r.value : { error: r.error.message });
      onAvailable(r.ok && r.value.sources.length > 0);
    });
    return () => {
      live = false;
    };
  }, [entryId, onAvailable]);

  const sources = media && 'sources' in media ? media.sources : [];
  const source: HistoryMediaSource | undefined = sources[choice];

  useEffect(() => {
    const el = audio.current;
    if (!el || !source) return;
    let frame = 0;
    const report = (): void => onTime(meetingTimeOf(source, el.currentTime));
    const tick = (): void => {
      report();
      frame = requestAnimationFrame(tick);
    };
    const playing = (): void => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(tick);
    };
    const stopped = (): void => {
      cancelAnimationFrame(frame);
      report();
    };
    const loaded = (): void => {
      if (pending.current === null) return;
      el.currentTime = audioTimeOf(source, pending.current);
      pending.current = null;
    };
    el.addEventListener('play', playing);
    el.addEventListener('pause', stopped);
    el.addEventListener('ended', stopped);
    el.addEventListener('seeked', report);
    el.addEventListener('timeupdate', report);
    el.addEventListener('loadedmetadata', loaded);
    return () => {
      cancelAnimationFrame(frame);
      for (const [name, fn] of [['play', playing], ['pause', stopped], ['ended', stopped], ['seeked', report], ['timeupdate', report], ['loadedmetadata', loaded]] as const) {
        el.removeEventListener(name, fn);
      }
    };
  }, [source, onTime]);

  useImperativeHandle(handle, () => ({
    seek(t: number) {
      const el = audio.current;
      if (!el || !source) return;
      el.currentTime = audioTimeOf(source, t);
      void el.play().catch(() => undefined);
    },
  }), [source]);

  if (media === null) return null;
  if ('error' in media) return <p className="warn-text" role="status">The audio cannot be played: {media.error}</p>;
  if (!source) return null;
  return (
    <div className="entry-player" role="group" aria-label="Audio">
      {sources.length > 1 ? (
        <label className="entry-player-source">
          <span>Listen to</span>
          <select
            value={choice}
            onChange={(event) => {
              const el = audio.current;
              pending.current = el ? meetingTimeOf(source, el.currentTime) : null;
              setChoice(Number(event.target.value));
            }}
            data-testid="history-audio-source"
          >
            {sources.map((s, i) => (
              <option key={s.source} value={i}>{s.source === 'mix' ? `${s.label} (mixed)` : `${s.label} only`}</option>
            ))}
          </select>
        </label>
      ) : null}
      <audio ref={audio} src={source.url} controls preload="metadata" aria-label={`Audio: ${source.label}`} data-testid="history-audio" data-offset={source.offsetSec} />
    </div>
  );
});
