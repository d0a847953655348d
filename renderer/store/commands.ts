// User commands that go to the main process: invoke, apply the reply through
// an action, turn a failure into a banner that says what to do. Returns the
// value (or null on failure) so callers can chain.
import type {
  IpcError, InsertRequirements, InsertTestResult, Result, FileTranscribeOptions, FileTranscript, HistoryChange, InvokeChannel, ModelFilePurpose, NemoWeightType, RequestOf, ResponseOf, SettingsPatch, VocabularyCheck, VocabularyPhrase,
} from '../../app/ipc/contract.js';
import { fileErrorText, importErrorText, noticeFromError } from '../errors.js';
import * as actions from './actions.js';
import { api } from './api.js';
import { fileName } from '../format.js';
import { uploadFile, type UploadSource } from '../bridge/upload.js';
import { pendingCancel } from './files.js';
import { listRequest } from './history.js';
import { appStore } from './store.js';

export async function call<C extends InvokeChannel>(
  channel: C,
  context: string,
  ...payload: RequestOf<C> extends void ? [] : [RequestOf<C>]
): Promise<ResponseOf<C> | null> {
  const result = await api().invoke(channel, ...payload);
  if (result.ok) return result.value;
  actions.notify(noticeFromError(result.error, 'error', context));
  return null;
}

/** For channels that answer nothing: true when it worked (a failure is a banner). */
async function done<C extends InvokeChannel>(
  channel: C,
  context: string,
  ...payload: RequestOf<C> extends void ? [] : [RequestOf<C>]
): Promise<boolean> {
  const result = await api().invoke(channel, ...payload);
  if (!result.ok) actions.notify(noticeFromError(result.error, 'error', context), 'history');
  return result.ok;
}

/** Everything the views show, loaded at start-up and after a reconnect. */
export async function loadAll(): Promise<void> {
  await Promise.all([
    call('app:info', 'Reading app information').then((v) => v && actions.appInfoLoaded(v)),
    call('engine:status', 'Reading the engine status').then((v) => v && actions.engineStatusChanged(v)),
    call('devices:list', 'Listing devices').then((v) => v && actions.devicesChanged(v)),
    call('settings:get', 'Reading settings').then((v) => v && actions.settingsLoaded(v)),
    call('models:state', 'Reading installed models').then((v) => v && actions.modelsChanged(v)),
    call('models:catalog', 'Reading the model catalog').then((v) => v && actions.catalogLoaded(v)),
    // The history is read when its view opens; after a reconnect, again if it was.
    appStore.getState().history.loaded ? loadHistory() : Promise.resolve(),
  ]);
}

export async function loadFirstRun(): Promise<void> {
  const locale = typeof navigator === 'undefined' ? undefined : navigator.language;
  const proposal = await call('models:firstRun', 'Proposing a first model', locale ? { locale } : {});
  if (proposal) actions.firstRunLoaded(proposal);
}

export async function refreshDevices(): Promise<void> {
  const state = await call('devices:list', 'Listing devices');
  if (state) actions.devicesChanged(state);
}

export async function selectDevice(name: string): Promise<void> {
  actions.deviceSwitching(name);
  const state = await call('devices:select', `Switching to ${name}`, { name });
  if (state) actions.devicesChanged(state);
  else actions.deviceSwitching(null);
  const status = await call('engine:status', 'Reading the engine status');
  if (status) actions.engineStatusChanged(status);
}

/**
 * Runs a device's self-test. The result arrives with devices:changed too (the registry stores it); the
 * list is read again so this window shows it even if the event raced the reply. A failure moves the model
 * to the CPU: the engine status is read again as well.
 */
export async function runSelfTest(name: string): Promise<void> {
  actions.deviceSelfTesting(name);
  try {
    await call('devices:selfTest', `Self-testing ${name}`, { name });
    const [state, status] = await Promise.all([
      call('devices:list', 'Listing devices'),
      call('engine:status', 'Reading the engine status'),
    ]);
    if (state) actions.devicesChanged(state);
    if (status) actions.engineStatusChanged(status);
  } finally {
    actions.deviceSelfTesting(null);
  }
}

/** insert:test with the saved settings (the sample text is main's); the outcome is shown next to Test. */
export async function testInsert(
  request: { text?: string; intoOwnWindow?: boolean } = {},
): Promise<{ ok: true; value: InsertTestResult } | { ok: false; error: IpcError }> {
  const result = await api().invoke('insert:test', request);
  return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error };
}

/** Each phrase against the active model's tokenizer (Settings → Vocabulary); null if it could not be asked. */
export async function checkVocabulary(phrases: VocabularyPhrase[]): Promise<VocabularyCheck | null> {
  const result = await api().invoke('vocabulary:check', { phrases });
  return result.ok ? result.value : null;
}

/** What inserting into other apps needs here (tools, permission) and what is missing; null if it could not be asked. */
export async function checkInsert(): Promise<InsertRequirements | null> {
  const result = await api().invoke('insert:check');
  return result.ok ? result.value : null;
}

/**
 * Saves a settings patch. The outcome goes back to the form (shown next to its Save button and the field a
 * refusal names), never to a banner: a failed save is about the form, not the app.
 */
export async function saveSettings(patch: SettingsPatch): Promise<{ ok: true } | { ok: false; error: IpcError }> {
  actions.settingsSaving();
  const result = await api().invoke('settings:set', patch);
  if (result.ok) {
    actions.settingsLoaded(result.value);
    return { ok: true };
  }
  // Nothing was applied; the saved values are read again so the form compares with the truth.
  const current = await api().invoke('settings:get');
  if (current.ok) actions.settingsLoaded(current.value);
  else actions.settingsSaveEnded();
  return { ok: false, error: result.error };
}

/**
 * Opens a .gguf the user named (listed under Installed by reference). A failure is for the picker to show
 * next to its button, in words (not a banner that outlives the attempt): null when it loaded.
 */
export async function loadModelFile(path: string): Promise<string | null> {
  const result = await api().invoke('engine:loadModel', { path });
  if (!result.ok) return importErrorText(result.error);
  actions.engineStatusChanged(result.value);
  return null;
}

export async function downloadModel(id: string): Promise<void> {
  const snap = await call('models:download', `Downloading ${id}`, { id });
  if (snap) actions.downloadStateChanged(snap);
}

export async function pauseDownload(id: string): Promise<void> {
  const snap = await call('models:pause', `Pausing ${id}`, { id });
  if (snap) actions.downloadStateChanged(snap);
}

export async function resumeDownload(id: string): Promise<void> {
  const snap = await call('models:resume', `Resuming ${id}`, { id });
  if (snap) actions.downloadStateChanged(snap);
}

export async function cancelDownload(id: string): Promise<void> {
  const snap = await call('models:cancel', `Cancelling ${id}`, { id });
  if (snap) actions.downloadStateChanged(snap);
}

/** True when it left the list. */
export async function removeModel(id: string): Promise<boolean> {
  const state = await call('models:remove', `Deleting ${id}`, { id });
  if (state) actions.modelsChanged(state);
  return state !== null;
}

export async function setActiveModel(id: string): Promise<void> {
  const state = await call('models:setActive', `Activating ${id}`, { id });
  if (state) actions.modelsChanged(state);
  const status = await call('engine:status', 'Reading the engine status');
  if (status) actions.engineStatusChanged(status);
}

/** Electron: a native open dialog; web mode has no file paths (the view asks for one). */
export async function pickModelFile(purpose: ModelFilePurpose = 'model'): Promise<string | null> {
  return call('models:pickFile', 'Opening a model file', purpose === 'model' ? undefined : { purpose });
}

/** How long "Imported …" stays next to Import (it is announced when it appears). */
export const IMPORT_OK_MS = 8000;
let importOkTimer: ReturnType<typeof setTimeout> | null = null;

/**
 * Imports a .gguf, or converts a .nemo with its weights stored as `nemoWeights`; the outcome is shown next
 * to the Import button (an error until the next try or edit).
 */
export async function importModel(path: string, nemoWeights?: NemoWeightType): Promise<void> {
  actions.importing(path);
  actions.importOutcome(null);
  if (importOkTimer) clearTimeout(importOkTimer);
  try {
    const result = await api().invoke('models:import', nemoWeights ? { path, nemoWeights } : { path });
    if (!result.ok) {
      actions.importOutcome({ kind: 'error', text: importErrorText(result.error) });
      return;
    }
    const state = await call('models:state', 'Reading installed models');
    if (state) actions.modelsChanged(state);
    actions.importOutcome({ kind: 'ok', text: `Imported ${result.value.displayName}. It is listed under Installed.` });
    importOkTimer = setTimeout(() => actions.importOutcome(null), IMPORT_OK_MS);
  } finally {
    actions.importing(null);
  }
}

/** Stops the running import (its outcome then reads as cancelled). */
export async function cancelImport(): Promise<void> {
  await call('models:cancelImport', 'Cancelling the import');
}

// ---------------------------------------------------------------- file transcription

/** Electron: a native open dialog filtered to .wav; web mode answers NOT_SUPPORTED (the view asks for a path). */
export async function pickAudioFile(): Promise<string | null> {
  return call('files:pickFile', 'Opening an audio file');
}

/**
 * Files added while one is transcribed wait here, in order (issue 44 item 11); the store shows their names.
 * Each runs when the one before it ends, whatever its outcome.
 */
interface QueuedFile {
  key: number;
  name: string;
  run: () => Promise<FileTranscript | null>;
}
const queued: QueuedFile[] = [];
let nextQueueKey = 1;

function publishQueue(): void {
  actions.fileQueueChanged(queued.map(({ key, name }) => ({ key, name })));
}

/** Runs `run` now, or after the files before it when one is being transcribed (resolves null then). */
function startOrQueue(name: string, run: () => Promise<FileTranscript | null>): Promise<FileTranscript | null> {
  if (appStore.getState().files.job.phase !== 'running') return run();
  queued.push({ key: nextQueueKey++, name, run });
  publishQueue();
  return Promise.resolve(null);
}

function runNextQueued(): void {
  const next = queued.shift();
  if (!next) return;
  publishQueue();
  void next.run();
}

/** Takes a waiting file off the queue. */
export function unqueueFile(key: number): void {
  const at = queued.findIndex((q) => q.key === key);
  if (at < 0) return;
  queued.splice(at, 1);
  publishQueue();
}

/**
 * Transcribes one file, or queues it behind the running one. Not through call(): a cancel the user asked for
 * comes back as ABORTED and is an outcome, not an error banner.
 */
export function transcribeFile(path: string, decoder?: FileTranscribeOptions['decoder'], speakers = false): Promise<FileTranscript | null> {
  return startOrQueue(fileName(path), () => runFileJob(path, decoder, speakers));
}

/** The request's options: only what was chosen (an empty request keeps the main process's defaults). */
function fileRequestOptions(decoder: FileTranscribeOptions['decoder'], speakers: boolean): { options?: FileTranscribeOptions } {
  const options: FileTranscribeOptions = { ...(decoder ? { decoder } : {}), ...(speakers ? { speakers } : {}) };
  return Object.keys(options).length ? { options } : {};
}

async function runFileJob(path: string, decoder: FileTranscribeOptions['decoder'], speakers: boolean): Promise<FileTranscript | null> {
  // A banner about the previous file would read as if it were about this one.
  actions.dismissNoticeKey('files');
  actions.fileJobStarted(path);
  return finishFileJob(await api().invoke('files:transcribe', { path, ...fileRequestOptions(decoder, speakers) }));
}

/** The running upload's abort (Cancel while the bytes are still going). */
let uploadAbort: AbortController | null = null;

/**
 * Web mode: uploads a dropped or picked file to the engine's machine (progress in the job), then transcribes it
 * there like a path; the server deletes its copy when the job ends.
 */
export function transcribeUpload(file: UploadSource, decoder?: FileTranscribeOptions['decoder'], speakers = false): Promise<FileTranscript | null> {
  return startOrQueue(file.name, () => runUploadJob(file, decoder, speakers));
}

async function runUploadJob(file: UploadSource, decoder: FileTranscribeOptions['decoder'], speakers: boolean): Promise<FileTranscript | null> {
  actions.dismissNoticeKey('files');
  actions.fileUploadStarted(file.name, file.size);
  const controller = new AbortController();
  uploadAbort = controller;
  const uploaded = await uploadFile(api(), file, { signal: controller.signal, onProgress: (received) => actions.fileUploadProgress(received) });
  uploadAbort = null;
  if (!uploaded.ok) return finishFileJob(uploaded);
  actions.fileUploadDone(uploaded.value.path);
  const { uploadId } = uploaded.value;
  return finishFileJob(await api().invoke('files:transcribeUpload', { uploadId, ...fileRequestOptions(decoder, speakers) }));
}

function finishFileJob(result: Result<FileTranscript>): FileTranscript | null {
  try {
    if (result.ok) {
      actions.fileJobFinished(result.value);
      return result.value;
    }
    if (result.error.code === 'ABORTED' && appStore.getState().files.job.cancel !== 'none') {
      actions.fileJobCancelled();
      return null;
    }
    // Shown once, at the job's place in the Files view (not also as a banner).
    actions.fileJobFailed(fileErrorText(result.error));
    return null;
  } finally {
    runNextQueued();
  }
}

/** Cancels the running job; before main has named it, the cancel waits for its first progress event. */
export async function cancelFileJob(): Promise<void> {
  actions.fileCancelRequested();
  // Still uploading: stop sending (the uploader tells the server to delete what it has).
  if (uploadAbort && !appStore.getState().files.job.upload?.done) uploadAbort.abort();
  await sendPendingFileCancel();
}

/** Sends a requested cancel once the job id is known (bridge.ts calls this after each files:progress). */
export async function sendPendingFileCancel(): Promise<void> {
  const jobId = pendingCancel(appStore.getState().files.job);
  if (!jobId) return;
  actions.fileCancelSent();
  const result = await api().invoke('files:cancel', { jobId });
  // NOT_FOUND: the job finished between the click and the request; its result is shown instead.
  if (!result.ok && result.error.code !== 'NOT_FOUND') {
    actions.notify(noticeFromError(result.error, 'error', 'Cancelling the transcription'), 'files');
  }
}

// ---------------------------------------------------------------- history

/** Reads the list for the current search (the newest request wins; see the history slice). */
export async function loadHistory(): Promise<void> {
  const seq = actions.historyListing();
  const list = await call('history:list', 'Reading the history', listRequest(appStore.getState().history));
  actions.historyListed(seq, list);
}

export async function openHistoryEntry(id: string): Promise<void> {
  actions.historyEntryOpening(id);
  const entry = await call('history:get', 'Opening the history entry', { id });
  if (entry) actions.historyEntryLoaded(entry);
  else if (appStore.getState().history.openId === id) actions.historyEntryClosed();
}

export async function deleteHistoryEntry(id: string): Promise<void> {
  if (await done('history:delete', 'Deleting the history entry', { id })) actions.historyEntryRemoved(id);
}

/** Saves a corrected line; the entry as saved is shown. false (and a banner) when it failed. */
export async function editHistorySegment(id: string, segmentId: number, text: string): Promise<boolean> {
  const entry = await call('history:editSegment', 'Saving the correction', { id, segmentId, text });
  if (entry) actions.historyEntryLoaded(entry);
  return entry !== null;
}

/** Renames (or, onto an existing name, merges) a meeting's speaker everywhere in the entry; false (and a banner) when it failed. */
export async function renameHistorySpeaker(id: string, from: string, to: string): Promise<boolean> {
  const entry = await call('history:renameSpeaker', 'Renaming the speaker', { id, from, to });
  if (entry) actions.historyEntryLoaded(entry);
  return entry !== null;
}

export async function clearHistory(): Promise<void> {
  if (await done('history:clear', 'Clearing the history')) actions.historyEntryClosed();
}

/**
 * history:changed: the list is read again (if this window shows it), and the opened entry follows: closed
 * when it was removed, read again when it changed. After retention removed several, reading it again
 * tells whether it is still there.
 */
export async function historyChanged(change: HistoryChange): Promise<void> {
  const { loaded, openId } = appStore.getState().history;
  if (change.change === 'cleared') actions.historyEntryClosed();
  else if (change.change === 'removed' && change.id !== null) actions.historyEntryRemoved(change.id);
  const reopen = openId !== null && (change.id === openId || (change.change === 'removed' && change.id === null));
  await Promise.all([
    loaded ? loadHistory() : Promise.resolve(),
    reopen && appStore.getState().history.openId === openId ? refreshOpenEntry(openId) : Promise.resolve(),
  ]);
}

/** Reads the opened entry again; one that is gone closes quietly (it was deleted elsewhere). */
async function refreshOpenEntry(id: string): Promise<void> {
  const result = await api().invoke('history:get', { id });
  if (result.ok) actions.historyEntryLoaded(result.value);
  else if (appStore.getState().history.openId === id) actions.historyEntryClosed();
}
