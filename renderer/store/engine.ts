// Engine slice: engine status, app info and (web mode) the bridge connection.
import type { AppInfo, EngineStatus } from '../../app/ipc/contract.js';
import type { ConnectionState, EngineSlice } from './types.js';

export const initialEngine: EngineSlice = { status: null, app: null, mode: null, connection: 'connecting' };

export function applyEngineStatus(s: EngineSlice, status: EngineStatus): EngineSlice {
  return { ...s, status };
}

export function applyAppInfo(s: EngineSlice, app: AppInfo): EngineSlice {
  return { ...s, app };
}

export function applyConnection(s: EngineSlice, connection: ConnectionState): EngineSlice {
  return connection === s.connection ? s : { ...s, connection };
}

/**
 * Whether a model is loaded and the engine can take work (busy counts: work queues; a model unloaded for
 * idleness counts too: the next call reloads it first).
 */
export function engineUsable(status: EngineStatus | null): boolean {
  return status !== null && (status.state === 'ready' || status.state === 'busy' || status.state === 'idle-unloaded');
}
