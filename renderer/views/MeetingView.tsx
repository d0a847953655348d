// Meeting: one button records the microphone ("You") and the computer's own
// audio ("Others") at once; two level meters, what each source is doing (or
// why it cannot record, and what to do), markers, and the transcript so far
// with each line's speaker and time; under each meter, what that track is
// saying right now (its partial, replaced by the final). A reload does not
// stop the meeting: the page shows it again, and a gap of the microphone is a
// line in the transcript. The whole meeting, with its audio, is in History
// once it stops (and after a crash, marked recovered).
import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { MeetingFinal, MeetingMarker, MeetingTrackName, SystemAudioCheck } from '../../app/ipc/contract.js';
import { api } from '../store/api.js';
import { shortClock } from '../../app/shared/meeting-export.js';
import { speakerTurns } from '../../app/shared/diarization.js';
import { Button } from '../components/Button.js';
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

/** Before Start: whether the system audio can be recorded, so a meeting does not start half-deaf unknowingly. */
function SystemAudioReadiness() {
  const [check, setCheck] = useState<SystemAudioCheck | null>(null);
  useEffect(() => {
    let live = true;
    void api().invoke('meeting:checkSystemAudio').then((r) => {
      if (live) setCheck(r.ok ? r.value : { ok: false, reason: r.error.message, action: '' });
    });
    return () => {
      live = false;
    };
  }, []);
  if (!check) return <p className="muted" data-testid="meeting-system-check" data-ok="pending">Checking that the system audio can be recorded…</p>;
  return check.ok ? (
    <p className="inline-ok" data-testid="meeting-system-check" data-ok="true">The system audio can be recorded ({check.source}).</p>
  ) : (
    <p className="warn-text" role="status" data-testid="meeting-system-check" data-ok="false">
      {check.reason} {check.action} A meeting started now records your microphone only.
    </p>
  );
}

/** A final's text after its speaker; a diarized line ("Others" track) one turn per speaker of its words. */
function LineText({ line }: { line: MeetingFinal }) {
  if (!line.words.some((w) => w.speaker !== undefined)) return <><strong>{line.speaker}</strong>: {line.text}</>;
  return (
    <>
      {speakerTurns(line.words).map((turn, i) => (
        <span key={`${turn.start}-${i}`} data-testid="meeting-turn">{i > 0 ? ' ' : ''}<strong>{turn.speaker || line.speaker}</strong>: {turn.text}</span>
      ))}
    </>
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
    <section className="view view-meeting" aria-labelledby="meeting-title">
      <header className="view-header">
        <h2 id="meeting-title">Meeting</h2>
        <p className="muted">
          Records your microphone and the computer&apos;s sound output as two tracks, keeps both on disk as they arrive, and
          transcribes them as the meeting goes.
        </p>
      </header>
      <div className="card meeting-card">
        <div className="controls">
          {recording || phase === 'stopping' ? (
            <Button variant="danger" className="btn-record" onClick={() => void meeting.stop()} disabled={phase === 'stopping'} data-testid="meeting-stop">
              {phase === 'stopping' ? 'Finishing…' : 'Stop meeting'}
            </Button>
          ) : (
            <Button variant="primary" className="btn-record" onClick={() => void meeting.start()} disabled={phase === 'starting'} data-testid="meeting-start">
              Start meeting
            </Button>
          )}
          {recording ? <span className="meeting-elapsed" aria-live="off" data-testid="meeting-elapsed">{shortClock(elapsed)}</span> : null}
        </div>
        {phase === 'idle' ? <SystemAudioReadiness /> : null}
        {error ? <p className="field-error" role="alert">{error}</p> : null}
        {last && phase === 'idle' ? <p className="inline-ok" role="status">Saved to History: {shortClock(last.durationSec)}, {last.finals} segments.</p> : null}
        <div className="meeting-meters">
          <TrackMeter track="you" label="You (microphone)" />
          <TrackMeter track="others" label="Others (system audio)" />
        </div>
        {recording ? (
          <form className="inline-form-row meeting-marker-form" onSubmit={(e) => { e.preventDefault(); void meeting.addMarker(note); setNote(''); }}>
            <label htmlFor="meeting-marker">Marker</label>
            <input id="meeting-marker" type="text" value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} placeholder="A note at this moment" />
            <Button type="submit" disabled={!note.trim()}>Add marker</Button>
          </form>
        ) : null}
      </div>
      {markers.length ? (
        <div className="card">
          <h3 id="meeting-markers-title">Markers</h3>
          <ul className="meeting-markers" aria-labelledby="meeting-markers-title">
            {markers.map((m) => (
              <li key={`${m.at}-${m.text}`} data-testid="meeting-marker">
                <span className="muted num">{shortClock(m.at)}</span> {m.text}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="card">
        <h3 id="meeting-transcript-title">Transcript</h3>
        <ol className="meeting-lines" aria-label="Meeting transcript" aria-live="polite" data-testid="meeting-transcript">
          {lines.map((line) => ('speaker' in line ? (
            <li key={`${line.track}-${line.segmentId}`}>
              <span className="muted num">{shortClock(line.start)}</span> <LineText line={line} />
            </li>
          ) : (
            <li key={`gap-${line.at}`} className="muted" data-testid="meeting-gap">
              <span className="num">{shortClock(line.at)}</span> {line.text}
            </li>
          )))}
        </ol>
        {lines.length === 0 ? <p className="transcript-empty">{recording ? 'Listening…' : 'The transcript shows here while a meeting records.'}</p> : null}
      </div>
    </section>
  );
}
