// Module-level actions: the only code that writes to the store. IPC events
// (bridge.ts) and user commands (commands.ts) come through here; components
// never set state themselves.
import type {
  AppInfo, DevicesState, DownloadProgress, DownloadSnapshot, EngineStatus, EventMap, FileTranscript, FirstRunProposal,
  HistoryEntry, HistoryKind, HistoryList, InsertDelivery, LatencyReport, ModelsState, Notice, SessionStateEvent, SessionSummary, Settings,
  TranscriptEvent, CatalogEntry,
} from '../../app/ipc/contract.js';
import { applyDevices } from './devices.js';
import { applyAppInfo, applyConnection, applyEngineStatus } from './engine.js';
import {
  applyFileProgress, fileCancelRequested as fileCancelRequestedReducer, fileCancelSent as fileCancelSentReducer,
  fileJobEnded as fileJobEndedReducer, fileJobFinished as fileJobFinishedReducer, fileJobStarted as fileJobStartedReducer,
  fileUploadDone as fileUploadDoneReducer, fileUploadProgress as fileUploadProgressReducer, fileUploadStarted as fileUploadStartedReducer,
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
import { addNotice, dismissKey, dismissNotice as dismissNoticeReducer } from './notices.js';
import { applyInserted, applyLatency, applySessionState, sessionStarted, sessionStopped, setPhase } from './session.js';
import { applySettings } from './settings.js';
import { appStore, initialState } from './store.js';
import { applySummary, applyTranscript, clearTranscript as clearTranscriptReducer, dropPartial as dropPartialReducer } from './transcript.js';
import type { AppState, ConnectionState, ModelsSlice, SessionPhase, View } from './types.js';

type Update = (s: AppState) => Partial<AppState>;
const set = (update: Update): void => appStore.setState(update);

/** Notices about the engine share one banner (crash → restarting → running again). */
export function noticeKey(code: string): string {
  if (code.startsWith('ENGINE_') || code === 'ENGINE') return 'engine';
  if (code.startsWith('MIC_') || code === 'PERMISSION_DENIED') return 'mic';
  return code;
}

// ---------------------------------------------------------------- events

export function engineStatusChanged(status: EngineStatus): void {
  const previous = appStore.getState().engine.status?.state;
  set((s) => ({ engine: applyEngineStatus(s.engine, status) }));
  if (status.state === 'missing') {
    notify({
      level: 'error',
      code: 'ENGINE_MISSING',
      message: status.lastError?.message ?? 'The speech engine is not available.',
      action: 'Build it with "npm run build:native", then restart the app.',
    });
  } else if (status.state === 'crashed' || status.state === 'restarting') {
    notify({
      level: 'warning',
      code: 'ENGINE_CRASHED',
      message:
        status.state === 'crashed'
          ? 'The speech engine stopped unexpectedly. Your recording continues and nothing captured is lost.'
          : 'The speech engine is restarting. Your recording continues and nothing captured is lost.',
      action: 'Keep talking: the text catches up when the engine is back. If this repeats, choose the CPU in the Devices view.',
    });
  } else if ((previous === 'crashed' || previous === 'restarting') && (status.state === 'ready' || status.state === 'busy')) {
    const device = status.model?.device.device.name;
    notify({
      level: 'info',
      code: 'ENGINE_RECOVERED',
      message: `The speech engine is running again${device ? ` on ${device}` : ''}; dictation continues.`,
    });
  }
}

export function devicesChanged(state: DevicesState): void {
  set((s) => ({ devices: { ...applyDevices(s.devices, state), switching: null } }));
}

export function modelsChanged(state: ModelsState): void {
  set((s) => ({ models: applyModelsState(s.models, state) }));
}

export function downloadStateChanged(snap: DownloadSnapshot): void {
  set((s) => ({ models: applyDownloadState(s.models, snap) }));
}

export function downloadProgressed(p: DownloadProgress): void {
  set((s) => ({ models: applyDownloadProgress(s.models, p) }));
}

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

export function insertDelivered(delivery: InsertDelivery): void {
  set((s) => ({ session: applyInserted(s.session, delivery) }));
}

export function latencyReported(report: LatencyReport): void {
  set((s) => ({ session: applyLatency(s.session, report) }));
}

export function fileProgressed(ev: EventMap['files:progress']): void {
  set((s) => ({ files: applyFileProgress(s.files, ev) }));
}

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
        action: 'Wait a moment. If this persists, restart "npm run web" and open the address it prints.',
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

export function appInfoLoaded(info: AppInfo): void {
  set((s) => ({ engine: applyAppInfo(s.engine, info) }));
}

export function settingsLoaded(values: Settings): void {
  set((s) => ({ settings: applySettings(s.settings, values) }));
}

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
  set((s) => ({ models: { ...s.models, importing: path } }));
}

export function dismissDownload(id: string): void {
  set((s) => ({ models: dismissDownloadReducer(s.models, id) }));
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

export function fileUploadStarted(name: string, sizeBytes: number): void {
  set((s) => ({ files: fileUploadStartedReducer(s.files, name, sizeBytes) }));
}

export function fileUploadProgress(receivedBytes: number): void {
  set((s) => ({ files: fileUploadProgressReducer(s.files, receivedBytes) }));
}

export function fileUploadDone(path: string): void {
  set((s) => ({ files: fileUploadDoneReducer(s.files, path) }));
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

export function fileCancelRequested(): void {
  set((s) => ({ files: fileCancelRequestedReducer(s.files) }));
}

export function fileCancelSent(): void {
  set((s) => ({ files: fileCancelSentReducer(s.files) }));
}

export function showFileResult(key: number): void {
  set((s) => ({ files: showFileResultReducer(s.files, key) }));
}

// ---------------------------------------------------------------- history

export function historySearch(query: string): void {
  set((s) => ({ history: historyQuery(s.history, query) }));
}

export function historyKindChosen(kind: HistoryKind | 'all'): void {
  set((s) => ({ history: historyKind(s.history, kind) }));
}

export function historyShowMore(): void {
  set((s) => ({ history: historyMore(s.history) }));
}

/** A list request goes out; returns its number (to match the reply). */
export function historyListing(): number {
  set((s) => ({ history: historyListRequested(s.history) }));
  return appStore.getState().history.requested;
}

/** The reply to list request `seq` (null: it failed; a banner says why). */
export function historyListed(seq: number, list: HistoryList | null): void {
  set((s) => ({ history: historyListLoaded(s.history, seq, list) }));
}

export function historyEntryOpening(id: string): void {
  set((s) => ({ history: historyOpening(s.history, id) }));
}

export function historyEntryLoaded(entry: HistoryEntry): void {
  set((s) => ({ history: historyOpened(s.history, entry) }));
}

export function historyEntryClosed(): void {
  set((s) => ({ history: historyClosedReducer(s.history) }));
}

export function historyEntryRemoved(id: string): void {
  set((s) => ({ history: historyRemoved(s.history, id) }));
}

// ---------------------------------------------------------------- session lifecycle

export function sessionPhase(phase: SessionPhase): void {
  set((s) => ({ session: setPhase(s.session, phase) }));
}

export function sessionBegan(sessionId: string): void {
  set((s) => ({ session: { ...sessionStarted(s.session, sessionId), keyLatency: keyLatency.attachSession(s.session.keyLatency ?? null, sessionId) } }));
}

export function sessionEnded(summary: SessionSummary | null): void {
  set((s) => ({
    session: sessionStopped(s.session, summary),
    transcript: summary ? applySummary(s.transcript, summary) : s.transcript,
  }));
}

export function micOpened(label: string | null, pressToMicMs: number | null): void {
  set((s) => ({ session: { ...s.session, micLabel: label, pressToMicMs: pressToMicMs ?? s.session.pressToMicMs } }));
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

export function dropPartial(sessionId: string): void {
  set((s) => ({ transcript: dropPartialReducer(s.transcript, sessionId) }));
}

export function dismissNoticeKey(key: string): void {
  set((s) => ({ notices: dismissKey(s.notices, key) }));
}

export function dismissNotice(id: number): void {
  set((s) => ({ notices: dismissNoticeReducer(s.notices, id) }));
}

/** Tests: back to a fresh store. */
export function resetStore(): void {
  appStore.setState(initialState(), true);
}
