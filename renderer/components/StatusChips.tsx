// Header chips: engine state and (web mode) the bridge connection.
import type { EngineState } from '../../app/ipc/contract.js';
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

export function StatusChips() {
  const state = useApp((s) => s.engine.status?.state ?? null);
  const device = useApp((s) => s.engine.status?.model?.device.device.name ?? null);
  const connection = useApp((s) => s.engine.connection);
  const mode = useApp((s) => s.engine.mode);
  return (
    <div className="chips" role="status" aria-label="App status">
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
