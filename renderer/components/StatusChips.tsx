// Header chips: the microphone (recording indicator, on every view), engine state and (web mode) the
// bridge connection.
import type { EngineState } from '../../app/ipc/contract.js';
import * as actions from '../store/actions.js';
import { useApp } from '../store/hooks.js';

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

/** Shown whenever the microphone may be live, whatever view is open; it goes to Dictate. */
function RecordingChip() {
  const phase = useApp((s) => s.session.phase);
  if (phase === 'idle') return null;
  return (
    <button
      type="button"
      className="chip chip-recording"
      data-testid="recording-chip"
      data-phase={phase}
      onClick={() => actions.showView('dictate')}
      aria-label={`${RECORDING_TEXT[phase]}: go to Dictate`}
    >
      <span className="rec-dot" aria-hidden="true" />
      {RECORDING_TEXT[phase]}
    </button>
  );
}

export function StatusChips() {
  const state = useApp((s) => s.engine.status?.state ?? null);
  const device = useApp((s) => s.engine.status?.model?.device.device.name ?? null);
  const connection = useApp((s) => s.engine.connection);
  const mode = useApp((s) => s.engine.mode);
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
      {mode === 'web' ? <span className="chip">Web mode</span> : null}
    </div>
  );
}
