// The one store, composed of slices. Vanilla (zustand/vanilla) so reducers and
// actions run in node unit tests; React binds to it in store/hooks.ts.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { initialDevices } from './devices.js';
import { initialEngine } from './engine.js';
import { initialFiles } from './files.js';
import { initialHistory } from './history.js';
import { initialModels } from './models.js';
import { initialNotices } from './notices.js';
import { initialSession } from './session.js';
import { initialSettings } from './settings.js';
import { initialTranscript } from './transcript.js';
import type { AppState } from './types.js';

export function initialState(): AppState {
  return {
    session: initialSession,
    transcript: initialTranscript,
    devices: initialDevices,
    models: initialModels,
    files: initialFiles,
    history: initialHistory,
    settings: initialSettings,
    engine: initialEngine,
    notices: initialNotices,
    ui: { view: 'dictate' },
  };
}

export function createAppStore(): StoreApi<AppState> {
  return createStore<AppState>()(() => initialState());
}

/** The application's store (tests create their own with createAppStore). */
export const appStore = createAppStore();

/**
 * A slice's reducer as an action on the store: `sliceAction('files', fileCancelSent)` is
 * `() => set(s => ({ files: fileCancelSent(s.files) }))`. The slice modules keep their reducers pure (unit
 * tested on plain values); actions.ts binds them here instead of writing a wrapper for each.
 */
export function sliceAction<K extends keyof AppState, A extends unknown[]>(
  key: K,
  reduce: (slice: AppState[K], ...args: A) => AppState[K],
): (...args: A) => void {
  return (...args) => appStore.setState((s) => ({ [key]: reduce(s[key], ...args) }) as Pick<AppState, K>);
}
