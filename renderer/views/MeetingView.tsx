// Meeting: one button records the microphone ("You") and the computer's own
// audio ("Others") at once; two level meters, what each source is doing (or
// why it cannot record, and what to do), markers, and the transcript so far
// with each line's speaker and time; under each meter, what that track is
// saying right now (its partial, replaced by the final). A reload does not
// stop the meeting: the page shows it again, and a gap of the microphone is a
// line in the transcript. The whole meeting, with its audio, is in History
// once it stops (and after a crash, marked recovered).
import { useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { MeetingFinal, MeetingMarker, MeetingTrackName } from '../../app/ipc/contract.js';
import { shortClock } from '../../app/shared/meeting-export.js';
import { meeting } from '../meeting/meeting.js';
import { meetingStore, type MeetingViewState } from '../meeting/meeting-store.js';

function useMeeting<T>(select: (s: MeetingViewState) => T): T {
  return useStore(meetingStore, select);
}

function TrackMeter({ track, label }: { track: MeetingTrackName; label: string }) {
  const level = useMeeting((s) => s.levels[track]);
  const source = useMeeting((s) => s.sources.find((x) => x.track === track) ?? null);
  const partial = useMeeting((s) => s.partials[track]);
  const id = `meeting-level-${track}`;
  return (
    <div className="level" data-testid={`meeting-source-${track}`}>
      <label htmlFor={id} className="level-label">{label}</label>
      <meter id={id} className={`level-meter${source?.state === 'recording' ? '' : ' level-off'}`} min={0} max={1} low={0.15} high={0.9} optimum={0.5} value={level}>
        {Math.round(level * 100)} %
      </meter>
      {source && source.state !== 'recording' && source.reason ? (
        <p className="field-error" role="status">
          {source.reason} {source.action}
        </p>
      ) : null}
      <p className="muted partial" aria-live="off" data-testid={`meeting-partial-${track}`}>{partial ? partial.text : ''}</p>
    </div>
  );
}

export function MeetingView() {
  const phase = useMeeting((s) => s.phase);
  const elapsed = useMeeting((s) => s.elapsedSec);
  const finals = useMeeting((s) => s.finals);
  const markers = useMeeting((s) => s.markers);
  const error = useMeeting((s) => s.error);
  const last = useMeeting((s) => s.last);
  const [note, setNote] = useState('');
  // Gaps (a track's page was away) are lines of the transcript, at their time.
  const lines = useMemo(() => {
    const gaps = markers.filter((m) => m.kind === 'gap' || /^The (microphone|system audio) was interrupted /.test(m.text));
    const out: (MeetingFinal | MeetingMarker)[] = [...finals];
    for (const gap of gaps) {
      let i = out.length;
      while (i > 0 && ('speaker' in out[i - 1]! ? (out[i - 1] as MeetingFinal).start : (out[i - 1] as MeetingMarker).at) > gap.at) i -= 1;
      out.splice(i, 0, gap);
    }
    return out;
  }, [finals, markers]);
  const recording = phase === 'recording';
  return (
    <section className="view" aria-labelledby="meeting-title">
      <h2 id="meeting-title">Meeting</h2>
      <p>Records your microphone and the computer&apos;s sound output as two tracks, keeps both on disk as they arrive, and transcribes them as the meeting goes.</p>
      <div className="row">
        {recording || phase === 'stopping' ? (
          <button type="button" className="button primary" onClick={() => void meeting.stop()} disabled={phase === 'stopping'} data-testid="meeting-stop">
            {phase === 'stopping' ? 'Finishing…' : 'Stop meeting'}
          </button>
        ) : (
          <button type="button" className="button primary" onClick={() => void meeting.start()} disabled={phase === 'starting'} data-testid="meeting-start">
            Start meeting
          </button>
        )}
        {recording ? <span aria-live="off" data-testid="meeting-elapsed">{shortClock(elapsed)}</span> : null}
      </div>
      {error ? <p className="field-error" role="alert">{error}</p> : null}
      {last && phase === 'idle' ? <p role="status">Saved to History: {shortClock(last.durationSec)}, {last.finals} segments.</p> : null}
      <TrackMeter track="you" label="You (microphone)" />
      <TrackMeter track="others" label="Others (system audio)" />
      {recording ? (
        <form className="row" onSubmit={(e) => { e.preventDefault(); void meeting.addMarker(note); setNote(''); }}>
          <label htmlFor="meeting-marker">Marker</label>
          <input id="meeting-marker" type="text" value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} placeholder="A note at this moment" />
          <button type="submit" className="button" disabled={!note.trim()}>Add marker</button>
        </form>
      ) : null}
      {markers.length ? (
        <ul aria-label="Markers">
          {markers.map((m, i) => <li key={i}>{shortClock(m.at)} — {m.text}</li>)}
        </ul>
      ) : null}
      <ol className="transcript" aria-label="Meeting transcript" aria-live="polite" data-testid="meeting-transcript">
        {lines.map((line) => ('speaker' in line ? (
          <li key={`${line.track}-${line.segmentId}`}>
            <span className="muted">{shortClock(line.start)}</span> <strong>{line.speaker}</strong>: {line.text}
          </li>
        ) : (
          <li key={`gap-${line.at}`} className="muted" data-testid="meeting-gap">
            <span>{shortClock(line.at)}</span> {line.text}
          </li>
        )))}
      </ol>
    </section>
  );
}
