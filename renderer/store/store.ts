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

/** A reducer of slice K: the slice and the action's arguments in, the new slice out. */
type SliceReducer<K extends keyof AppState> = (slice: AppState[K], ...args: never[]) => AppState[K];

/** The actions bound from a record of slice reducers: same names, the slice argument gone. */
export type SliceActions<K extends keyof AppState, R extends Record<string, SliceReducer<K>>> = {
  [N in keyof R]: R[N] extends (slice: AppState[K], ...args: infer A) => AppState[K] ? (...args: A) => void : never;
};

/**
 * Slice reducers as actions on the store: `sliceActions('files', { fileCancelSent })` gives
 * `fileCancelSent()` = `set(s => ({ files: fileCancelSent(s.files) }))`. The slice modules keep their
 * reducers pure (unit tested on plain values); actions.ts binds them here instead of writing a wrapper each.
 */
export function sliceActions<K extends keyof AppState, R extends Record<string, SliceReducer<K>>>(key: K, reducers: R): SliceActions<K, R> {
  const bound: Record<string, (...args: never[]) => void> = {};
  for (const [name, reduce] of Object.entries(reducers)) {
    bound[name] = (...args) => appStore.setState((s) => ({ [key]: reduce(s[key], ...args) }) as Pick<AppState, K>);
  }
  return bound as SliceActions<K, R>;
}
