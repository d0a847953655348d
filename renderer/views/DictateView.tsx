// Dictate: start/stop, level, live text (tentative partial, settled finals),
// copy/clear, latencies, and what the engine runs on.
import { useEffect } from 'react';
import { dictation } from '../audio/dictation.js';
import { Button } from '../components/Button.js';
import { CopyButton } from '../components/CopyButton.js';
import { LatencyFigures } from '../components/LatencyFigures.js';
import { LevelMeter } from '../components/LevelMeter.js';
import { FirstRun } from './dictate/FirstRun.js';
import { Transcript } from '../components/Transcript.js';
import * as actions from '../store/actions.js';
import { engineUsable } from '../store/engine.js';
import { useApp } from '../store/hooks.js';
import { finalText } from '../store/transcript.js';
import type { SessionPhase } from '../store/types.js';
import type { EngineState } from '../../app/ipc/contract.js';
import { appStore } from '../store/store.js';
import { LanguagePicker } from './dictate/LanguagePicker.js';
import { useStore } from 'zustand';
import { meetingStore } from '../meeting/meeting-store.js';

export const SHORTCUT_LABEL = 'Ctrl+Shift+Space';
/** Stable empty list: a selector returning a fresh [] would re-render forever. */
const NONE: string[] = [];

const PHASE_TEXT: Record<SessionPhase, string> = {
  idle: 'Ready',
  opening: 'Opening the microphone…',
  starting: 'Starting…',
  live: 'Listening',
  stopping: 'Finishing the last sentence…',
};

function StatusLine() {
  const phase = useApp((s) => s.session.phase);
  const ready = useApp((s) => engineUsable(s.engine.status));
  const server = useApp((s) => s.session.serverState);
  const mic = useApp((s) => s.session.micLabel);
  const text = phase === 'live' && server === 'speech'
    ? 'Hearing speech'
    : phase === 'live' && server === 'finalizing'
      ? 'Finalizing'
      : phase === 'idle' && !ready
        ? 'Not ready'
        : PHASE_TEXT[phase];
  return (
    <p className="status-line" data-testid="session-status" data-phase={phase}>
      <span className={`dot dot-${phase}`} aria-hidden="true" />
      {text}
      {mic ? <span className="muted"> · {mic}</span> : null}
    </p>
  );
}

/** The truth about live text when something else uses the engine. */
function LiveNote() {
  const phase = useApp((s) => s.session.phase);
  const delayedBy = useApp((s) => s.session.delayedBy);
  const fileRunning = useApp((s) => s.files.job.phase === 'running');
  if (phase === 'live' && delayedBy) {
    return (
      <p className="live-note warn-text" data-testid="live-note" data-kind="delayed" role="status">
        Live text is delayed while the engine is {delayedBy}; it catches up when that ends. Nothing you say is lost.
      </p>
    );
  }
  if (fileRunning) {
    return (
      <p className="live-note muted" data-testid="live-note" data-kind="file" role="status">
        A file is being transcribed. Your dictation runs beside it and goes first: the file goes slower while you dictate.
      </p>
    );
  }
  return null;
}

function EngineLine() {
  const status = useApp((s) => s.engine.status);
  const lastRan = useApp((s) => s.devices.state?.lastRan ?? NONE);
  if (!status) return <p className="engine-line muted">Connecting to the engine…</p>;
  if (!status.model) {
    return (
      <p className="engine-line engine-none" data-testid="engine-line">
        No model is loaded yet: set one up below.
      </p>
    );
  }
  const device = status.model.device.device.name;
  return (
    <p className="engine-line" data-testid="engine-line">
      <strong>{status.model.name || status.model.arch}</strong>
      <span className="muted"> · {status.model.defaultDecoder.toUpperCase()} · engine {status.state}</span>
      <span className="muted"> · running on {device}</span>
      {lastRan.length ? <span data-testid="ran-on"> · last decode ran on {lastRan.join(' + ')}</span> : null}
    </p>
  );
}

/** Why Start cannot be pressed now, in words (null when it can). */
export function startBlocker(state: EngineState | null, hasModel: boolean): string | null {
  switch (state) {
    case null:
      return 'Start waits for the connection to the engine.';
    case 'missing':
      return 'Start is unavailable: the speech engine is not built (npm run build:native).';
    case 'starting':
      return 'Start waits for the engine to start.';
    case 'loading':
      return 'Start waits for the model to finish loading.';
    case 'no-model':
      return 'Start needs a model: get one in step 1 below.';
    default:
      return hasModel || state === 'crashed' || state === 'restarting' ? null : 'Start needs a model: get one in step 1 below.';
  }
}

function Controls() {
  const phase = useApp((s) => s.session.phase);
  const state = useApp((s) => s.engine.status?.state ?? null);
  const hasModel = useApp((s) => s.engine.status?.model != null);
  const usable = useApp((s) => engineUsable(s.engine.status) || s.engine.status?.state === 'crashed' || s.engine.status?.state === 'restarting');
  // A meeting records this microphone and transcribes it already: dictation waits for it (issue 44 item 3).
  const meeting = useStore(meetingStore, (s) => s.phase !== 'idle');
  const live = phase === 'live';
  const busy = phase !== 'idle' && phase !== 'live';
  const blocker = !live && !usable
    ? startBlocker(state, hasModel)
    : !live && meeting
      ? 'A meeting is recording this microphone: stop it in the Meeting view to dictate.'
      : null;
  return (
    <div className="controls">
      <Button
        variant={live ? 'danger' : 'primary'}
        className="btn-record"
        aria-keyshortcuts="Control+Shift+Space"
        disabled={busy || (!live && (!usable || meeting))}
        onClick={() => void dictation.toggle()}
        aria-describedby={blocker ? 'record-why' : undefined}
        data-testid="record"
      >
        {live ? 'Stop' : phase === 'stopping' ? 'Stopping…' : busy ? 'Starting…' : 'Start dictation'}
      </Button>
      {live ? (
        <Button variant="quiet" aria-keyshortcuts="Escape" onClick={() => void dictation.cancel()}>
          Cancel
        </Button>
      ) : null}
      <LanguagePicker />
      {blocker ? (
        <span className="hint warn-text" id="record-why" data-testid="record-why">
          {blocker}
        </span>
      ) : (
        <span className="hint">
          {SHORTCUT_LABEL} to start/stop{live ? ', Esc to cancel' : ''}
        </span>
      )}
    </div>
  );
}

function TranscriptTools() {
  const hasText = useApp((s) => s.transcript.finals.length > 0);
  // Clear also takes tentative text off the screen (there is nothing to copy in it yet).
  const hasAnything = useApp((s) => s.transcript.finals.length > 0 || s.transcript.partial !== null);
  return (
    <div className="transcript-tools">
      <CopyButton getText={() => finalText(appStore.getState().transcript)} disabled={!hasText} />
      <Button variant="quiet" onClick={() => actions.clearTranscript()} disabled={!hasAnything}>
        Clear
      </Button>
    </div>
  );
}

export function DictateView() {
  const armed = useApp((s) => s.session.armed);
  // No model loaded (and the engine is there to load one): the set-up steps.
  const firstRun = useApp((s) => s.engine.status !== null && s.engine.status.model === null && s.engine.status.state !== 'missing');
  // Keep the mic (and its pre-roll) open while this view is shown, if the user chose that.
  useEffect(() => {
    if (!armed) return;
    void dictation.arm();
    return () => void dictation.disarm();
  }, [armed]);

  return (
    <section className="view view-dictate" aria-labelledby="dictate-title">
      <header className="view-header">
        <h2 id="dictate-title">Dictate</h2>
        <EngineLine />
      </header>
      <div className="card dictate-card">
        <Controls />
        <div className="dictate-meta">
          <StatusLine />
          <LevelMeter />
        </div>
        <LiveNote />
      </div>
      {firstRun ? <FirstRun /> : null}
      <div className="card">
        <div className="card-title-row">
          <h3>Transcript</h3>
          <TranscriptTools />
        </div>
        <Transcript />
      </div>
      <div className="card">
        <LatencyFigures />
      </div>
    </section>
  );
}
