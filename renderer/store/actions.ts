// Module-level actions: the only code that writes to the store. IPC events
// (bridge.ts) and user commands (commands.ts) come through here; components
// never set state themselves. A slice's reducer that is an action as it is
// becomes one with sliceActions (store.ts); what is written out here does more
// (touches two slices, raises a banner, stamps a time).
import type {
  DevicesState, EngineStatus, EventMap, FileTranscript, FirstRunProposal, Notice, SessionStateEvent, SessionSummary,
  TranscriptEvent, CatalogEntry,
} from '../../app/ipc/contract.js';
import { applyDevices } from './devices.js';
import { applyAppInfo, applyConnection, applyEngineStatus } from './engine.js';
import {
  applyFileProgress, fileCancelRequested as fileCancelRequestedReducer, fileCancelSent as fileCancelSentReducer,
  fileJobEnded as fileJobEndedReducer, fileJobFinished as fileJobFinishedReducer, fileJobStarted as fileJobStartedReducer,
  fileUploadDone as fileUploadDoneReducer, fileQueueChanged as fileQueueChangedReducer, fileUploadProgress as fileUploadProgressReducer, fileUploadStarted as fileUploadStartedReducer,
  showFileResult as showFileResultReducer,
} from './files.js';
import {
  historyClosed as historyClosedReducer, historyKind, historyListLoaded, historyListRequested, historyMore, historyOpened,
  historyOpening, historyQuery, historyRemoved,
} from './history.js';
import {
  applyDownloadProgress, applyDownloadState, applyModelsState, dismissDownload as dismissDownloadReducer,
} from './models.js';
import * as keyLatency from './key-latency.js';
import { addNotice, dismissKey, dismissKeyPrefix, dismissNotice as dismissNoticeReducer } from './notices.js';
import { applyInserted, applyLatency, applySessionState, sessionStarted, sessionStopped, setPhase } from './session.js';
import { applySettings } from './settings.js';
import { appStore, initialState, sliceActions } from './store.js';
import { applySummary, applyTranscript, clearTranscript as clearTranscriptReducer, dropPartial as dropPartialReducer } from './transcript.js';
import type { AppState, ConnectionState, ModelsSlice, View } from './types.js';

type Update = (s: AppState) => Partial<AppState>;
const set = (update: Update): void => appStore.setState(update);

/** Notices about the engine share one banner (crash → restarting → running again). */
export function noticeKey(code: string): string {
  if (code.startsWith('ENGINE_') || code === 'ENGINE') return 'engine';
  if (code.startsWith('MIC_') || code === 'PERMISSION_DENIED') return 'mic';
  // A meeting's warnings (a source lost, the engine behind, dictation refused) end with the meeting.
  if (code.startsWith('MEETING_')) return `${MEETING_NOTICE_PREFIX}${code}`;
  return code;
}

export const MEETING_NOTICE_PREFIX = 'meeting:';
/** Banners about loading a model: a model that loaded makes them untrue. */
const MODEL_LOAD_NOTICES = ['MODEL_INVALID', 'NO_MODEL', 'UNKNOWN_MODEL', 'NOT_FOUND', 'INVALID_PAYLOAD'];

// ---------------------------------------------------------------- events

/**
 * A crash and the restart are told by main's own notices (ENGINE_CRASHED, then ENGINE_RESTARTED: one
 * banner, key 'engine'); the status only moves the chips. A missing engine is a state main has no notice
 * for, so its banner is made here.
 */
export function engineStatusChanged(status: EngineStatus): void {
  set((s) => ({ engine: applyEngineStatus(s.engine, status) }));
  // A banner belongs to its cause: once a model is loaded, "could not load" ones are stale (issue 44 item 4).
  if (status.model && (status.state === 'ready' || status.state === 'busy')) {
    for (const key of MODEL_LOAD_NOTICES) dismissNoticeKey(key);
  }
  if (status.state === 'missing') {
    notify({
      level: 'error',
      code: 'ENGINE_MISSING',
      message: status.lastError?.message ?? 'The speech engine is not available.',
      action: 'Build it with "npm run build:native", then restart the app.',
    });
  }
}

export function devicesChanged(state: DevicesState): void {
  set((s) => ({ devices: { ...applyDevices(s.devices, state), switching: null } }));
}

export const { modelsChanged, downloadStateChanged, downloadProgressed, dismissDownload } = sliceActions('models', {
  modelsChanged: applyModelsState,
  downloadStateChanged: applyDownloadState,
  downloadProgressed: applyDownloadProgress,
  dismissDownload: dismissDownloadReducer,
});

export const { dropPartial } = sliceActions('transcript', {
  dropPartial: dropPartialReducer,
});

export function transcriptReceived(ev: TranscriptEvent): void {
  set((s) => ({
    transcript: applyTranscript(s.transcript, ev),
    session: { ...s.session, keyLatency: keyLatency.textArrived(s.session.keyLatency ?? null, ev, Date.now()) },
  }));
}

/** A press that will start a session (the latency panel measures from `at`, epoch ms). */
export function startPressed(at: number, source: 'hotkey' | 'key' | 'button'): void {
  set((s) => ({ session: { ...s.session, keyLatency: keyLatency.pressed(at, source) } }));
}

export function textInserted(ev: EventMap['dictation:inserted']): void {
  if (ev.method === 'copied') return;  // only on the clipboard: not in the other app yet
  set((s) => ({ session: { ...s.session, keyLatency: keyLatency.textInserted(s.session.keyLatency ?? null, ev) } }));
}

export function sessionStateChanged(ev: SessionStateEvent): void {
  set((s) => ({ session: applySessionState(s.session, ev) }));
  if (ev.notice) {
    notify({
      level: ev.state === 'failed' ? 'error' : 'warning',
      code: ev.notice.code,
      message: ev.notice.message,
    });
  }
}

export const { latencyReported, sessionPhase, insertDelivered } = sliceActions('session', {
  latencyReported: applyLatency,
  sessionPhase: setPhase,
  insertDelivered: applyInserted,
});

export function sessionBegan(sessionId: string): void {
  set((s) => ({ session: { ...sessionStarted(s.session, sessionId), keyLatency: keyLatency.attachSession(s.session.keyLatency ?? null, sessionId) } }));
}

export const {
  fileProgressed, fileCancelRequested, fileCancelSent, showFileResult, fileUploadStarted, fileUploadProgress, fileUploadDone, fileQueueChanged,
} = sliceActions('files', {
  fileQueueChanged: fileQueueChangedReducer,
  fileProgressed: applyFileProgress,
  fileUploadStarted: fileUploadStartedReducer,
  fileUploadProgress: fileUploadProgressReducer,
  fileUploadDone: fileUploadDoneReducer,
  fileCancelRequested: fileCancelRequestedReducer,
  fileCancelSent: fileCancelSentReducer,
  showFileResult: showFileResultReducer,
});

export function notify(notice: Notice, key: string = noticeKey(notice.code)): void {
  set((s) => ({ notices: addNotice(s.notices, notice, key) }));
}

export function connectionChanged(connection: ConnectionState): void {
  set((s) => ({ engine: applyConnection(s.engine, connection) }));
  if (connection === 'disconnected') {
    notify(
      {
        level: 'error',
        code: 'DISCONNECTED',
        message: 'Disconnected from the Parakeet service. Reconnecting…',
        // A restarted server keeps its port but not its token: this tab cannot get back in by itself.
        action: 'Wait a moment. If the app was restarted, open the new address it printed in its terminal (it carries a new access token).',
      },
      'connection',
    );
  } else if (connection === 'connected') {
    set((s) => ({ notices: dismissKey(s.notices, 'connection') }));
  }
}

// ---------------------------------------------------------------- replies

export function modeKnown(mode: 'electron' | 'web'): void {
  set((s) => ({ engine: { ...s.engine, mode } }));
}

export const { appInfoLoaded } = sliceActions('engine', {
  appInfoLoaded: applyAppInfo,
});

export const { settingsLoaded } = sliceActions('settings', {
  settingsLoaded: applySettings,
});

export function settingsSaving(): void {
  set((s) => ({ settings: { ...s.settings, saving: true } }));
}

export function settingsSaveEnded(): void {
  set((s) => ({ settings: { ...s.settings, saving: false } }));
}

export function catalogLoaded(catalog: CatalogEntry[]): void {
  set((s) => ({ models: { ...s.models, catalog } }));
}

export function firstRunLoaded(firstRun: FirstRunProposal): void {
  set((s) => ({ models: { ...s.models, firstRun } }));
}

export function importOutcome(outcome: ModelsSlice['importOutcome']): void {
  set((s) => ({ models: { ...s.models, importOutcome: outcome } }));
}

export function importing(path: string | null): void {
  set((s) => ({ models: { ...s.models, importing: path, importProgress: null } }));
}

/** main's progress of the running .nemo conversion (ignored once that import is over). */
export function importProgressed(p: { path: string; fraction: number }): void {
  set((s) => (s.models.importing === p.path ? { models: { ...s.models, importProgress: p.fraction } } : {}));
}

export function deviceSwitching(name: string | null): void {
  set((s) => ({ devices: { ...s.devices, switching: name } }));
}

export function deviceSelfTesting(name: string | null): void {
  set((s) => ({ devices: { ...s.devices, testing: name } }));
}

// ---------------------------------------------------------------- file transcription

export function fileJobStarted(path: string): void {
  set((s) => ({ files: fileJobStartedReducer(s.files, path) }));
}

export function fileJobFinished(transcript: FileTranscript): void {
  set((s) => ({ files: fileJobFinishedReducer(s.files, transcript, Date.now()) }));
}

export function fileJobCancelled(): void {
  set((s) => ({ files: fileJobEndedReducer(s.files, { cancelled: true }) }));
}

export function fileJobFailed(error: string): void {
  set((s) => ({ files: fileJobEndedReducer(s.files, { cancelled: false, error }) }));
}

// ---------------------------------------------------------------- history

export const { historySearch, historyKindChosen, historyShowMore, historyListed, historyEntryOpening, historyEntryLoaded, historyEntryClosed, historyEntryRemoved } = sliceActions('history', {
  historySearch: historyQuery,
  historyKindChosen: historyKind,
  historyShowMore: historyMore,
  /** The reply to list request `seq` (null: it failed; a banner says why). */
  historyListed: historyListLoaded,
  historyEntryOpening: historyOpening,
  historyEntryLoaded: historyOpened,
  historyEntryClosed: historyClosedReducer,
  historyEntryRemoved: historyRemoved,
});

/** A list request goes out; returns its number (to match the reply). */
export function historyListing(): number {
  set((s) => ({ history: historyListRequested(s.history) }));
  return appStore.getState().history.requested;
}


// ---------------------------------------------------------------- session lifecycle

export function sessionEnded(summary: SessionSummary | null): void {
  set((s) => ({
    session: sessionStopped(s.session, summary),
    transcript: summary ? applySummary(s.transcript, summary) : s.transcript,
  }));
}

export function micOpened(label: string | null, pressToMicMs: number | null): void {
  set((s) => ({ session: { ...s.session, micLabel: label, pressToMicMs: pressToMicMs ?? s.session.pressToMicMs } }));
}

/** The first run's microphone test started or ended. */
export function micTesting(on: boolean): void {
  set((s) => ({ session: { ...s.session, micTest: on } }));
}

export function micClosed(): void {
  set((s) => ({ session: { ...s.session, micLabel: null, level: 0 } }));
}

/** Start pressed: the press-to-mic figure is measured again. */
export function pressLatencyReset(): void {
  set((s) => ({ session: { ...s.session, pressToMicMs: null } }));
}

export function firstFrameAfterPress(ms: number): void {
  set((s) => ({ session: { ...s.session, pressToMicMs: ms } }));
}

export function inputLevel(level: number): void {
  if (appStore.getState().session.level === level) return;
  set((s) => ({ session: { ...s.session, level } }));
}

export function setArmed(armed: boolean): void {
  set((s) => ({ session: { ...s.session, armed } }));
}

// ---------------------------------------------------------------- ui

export function showView(view: View): void {
  set((s) => ({ ui: { ...s.ui, view } }));
}

export function clearTranscript(): void {
  set(() => ({ transcript: clearTranscriptReducer() }));
}

export const { dismissNoticeKey, dismissNotice, dismissNoticeKeyPrefix } = sliceActions('notices', {
  dismissNoticeKey: dismissKey,
  dismissNotice: dismissNoticeReducer,
  dismissNoticeKeyPrefix: dismissKeyPrefix,
});

/** Tests: back to a fresh store. */
export function resetStore(): void {
  appStore.setState(initialState(), true);
}
