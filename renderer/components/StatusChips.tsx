// Header chips: the microphone (recording indicator, on every view: a dictation, a meeting, the first
// run's microphone test), engine state and (web mode) the bridge connection.
import { useStore } from 'zustand';
import type { EngineState } from '../../app/ipc/contract.js';
import { meetingStore } from '../meeting/meeting-store.js';
import * as actions from '../store/actions.js';
import { useApp } from '../store/hooks.js';
import type { View } from '../store/types.js';

const ENGINE_TEXT: Record<EngineState, string> = {
  missing: 'Engine not built',
  starting: 'Engine starting',
  'no-model': 'No model',
  loading: 'Loading model',
  ready: 'Ready',
  busy: 'Working',
  crashed: 'Engine crashed',
  restarting: 'Engine restarting',
  'idle-unloaded': 'Model unloaded (idle) — reloads on use',
};

const RECORDING_TEXT = {
  opening: 'Opening microphone…',
  starting: 'Microphone on · starting',
  live: 'Recording',
  stopping: 'Recording · finishing',
} as const;

const MEETING_TEXT = {
  starting: 'Meeting · starting',
  recording: 'Recording meeting',
  stopping: 'Meeting · finishing',
} as const;

/** What holds the microphone now, in words, and the view that controls it (null: nothing). */
function useRecording(): { text: string; source: 'dictation' | 'meeting' | 'mic-test'; phase: string; view: View } | null {
  const phase = useApp((s) => s.session.phase);
  const micTest = useApp((s) => s.session.micTest === true);
  const meeting = useStore(meetingStore, (s) => s.phase);
  if (phase !== 'idle') return { text: RECORDING_TEXT[phase], source: 'dictation', phase, view: 'dictate' };
  if (meeting !== 'idle') return { text: MEETING_TEXT[meeting], source: 'meeting', phase: meeting, view: 'meeting' };
  if (micTest) return { text: 'Microphone on · testing', source: 'mic-test', phase: 'testing', view: 'dictate' };
  return null;
}

const VIEW_NAME: Record<'dictate' | 'meeting', string> = { dictate: 'Dictate', meeting: 'Meeting' };

/** Shown whenever the microphone may be live, whatever view is open; it goes to the view that controls it. */
function RecordingChip() {
  const recording = useRecording();
  if (!recording) return null;
  const view = recording.view === 'meeting' ? 'meeting' : 'dictate';
  return (
    <button
      type="button"
      className="chip chip-recording"
      data-testid="recording-chip"
      data-phase={recording.phase}
      data-source={recording.source}
      onClick={() => actions.showView(view)}
      aria-label={`${recording.text}: go to ${VIEW_NAME[view]}`}
    >
      <span className="rec-dot" aria-hidden="true" />
      {recording.text}
    </button>
  );
}

/** The model dictation uses, by name, on every view (issue 44 item 8): the installed entry's name, else the file's. */
function ModelChip() {
  const installedName = useApp((s) => s.models.installed.find((m) => m.id === s.engine.status?.modelId)?.displayName ?? null);
  const fileName = useApp((s) => s.engine.status?.model?.name || null);
  const name = installedName ?? fileName;
  if (!name) return null;
  return (
    <span className="chip chip-model" data-testid="model-chip" title={name}>
      <span className="visually-hidden">Active model: </span>
      {name}
    </span>
  );
}

export function StatusChips() {
  const state = useApp((s) => s.engine.status?.state ?? null);
  const device = useApp((s) => s.engine.status?.model?.device.device.name ?? null);
  const connection = useApp((s) => s.engine.connection);
  const mode = useApp((s) => s.engine.mode);
  const preparing = useApp((s) => s.devices.state?.preparing?.device ?? null);
  return (
    <div className="chips" role="status" aria-label="App status">
      <RecordingChip />
      {connection !== 'connected' ? (
        <span className="chip chip-bad" data-testid="connection-chip">
          {connection === 'connecting' ? 'Connecting…' : 'Disconnected'}
        </span>
      ) : null}
      {state ? (
        <span className={`chip chip-${state}`} data-testid="engine-chip" data-state={state}>
          {ENGINE_TEXT[state]}
          {device && (state === 'ready' || state === 'busy') ? ` · ${device}` : ''}
        </span>
      ) : null}
      {preparing ? (
        <span className="chip chip-loading" data-testid="preparing-chip" title={`${preparing} is compiling its compute pipelines (its first use)`}>
          Preparing the GPU (once) · {preparing}
        </span>
      ) : null}
      <ModelChip />
      {mode === 'web' ? <span className="chip">Web mode</span> : null}
    </div>
  );
}
