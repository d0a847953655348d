// Meeting: one button records the microphone ("You") and the computer's own
// audio ("Others") at once; two level meters, what each source is doing (or
// why it cannot record, and what to do), markers, and the transcript so far
// with each line's speaker and time. The whole meeting, with its audio, is in
// History once it stops (and after a crash, marked recovered).
import { useState } from 'react';
import { useStore } from 'zustand';
import type { MeetingTrackName } from '../../app/ipc/contract.js';
import { shortClock } from '../../app/shared/meeting-export.js';
import { meeting } from '../meeting/meeting.js';
import { meetingStore, type MeetingViewState } from '../meeting/meeting-store.js';

function useMeeting<T>(select: (s: MeetingViewState) => T): T {
  return useStore(meetingStore, select);
}

function TrackMeter({ track, label }: { track: MeetingTrackName; label: string }) {
  const level = useMeeting((s) => s.levels[track]);
  const source = useMeeting((s) => s.sources.find((x) => x.track === track) ?? null);
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
        {finals.map((f) => (
          <li key={`${f.track}-${f.segmentId}`}>
            <span className="muted">{shortClock(f.start)}</span> <strong>{f.speaker}</strong>: {f.text}
          </li>
        ))}
      </ol>
    </section>
  );
}
