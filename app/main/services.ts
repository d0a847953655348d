// The main process's service graph, Electron-free: settings, logger, event
// bus, engine host, device registry, model manager, dictation sessions, file
// jobs, the history and the IPC router. The Electron adapter (index.ts, ipc.ts) and the
// web bridge (app/web) build exactly this and only differ in transport and in
// the few platform hooks (open a folder, pick a file).
//
// createServicesLocked is the composition root: it calls one small constructor
// per service in dependency order and wires their events (service-wiring.ts).
import { acquireInstanceLock, type InstanceLock } from './util/instance-lock.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppInfo, ModelsState, Notice, Settings, VadModelChoice } from '../ipc/contract.js';
import { DeviceRegistry } from './devices/device-registry.js';
import { EngineHost } from './engine/engine-host.js';
import type { EngineLoadOptions } from '../engine-process/protocol.js';
import { EventBus } from './events.js';
import { FileTranscriber } from './files/file-transcriber.js';
import { UploadStore } from './files/uploads.js';
import { createHandlers } from './handlers.js';
import { HistoryService } from './history/history-service.js';
import { createTextInserter } from './insert/create.js';
import { DictationInsert } from './insert/dictation-insert.js';
import { checkInsertRequirements } from './insert/requirements.js';
import { linuxSystemAudio, type SystemAudioStarter } from './meeting/system-audio.js';
import { systemAudioPlan } from '../shared/system-audio-plan.js';
import { MeetingService } from './meeting/meeting-service.js';
import { LogSink, createLogger, isLogLevel, type Logger } from './log.js';
import { engineValidator, toValidatedModelInfo } from './model-validation.js';
import { ModelManager } from './models/index.js';
import { machineSpeed } from './models/machine-speed.js';
import type { MachineSpeed } from './models/types.js';
import { Router } from './router.js';
import type { Services, ServicesCore, ServicesOptions } from './service-types.js';
import { applyDiarizer, wireServiceEvents } from './service-wiring.js';
import { SessionManager } from './sessions/session-manager.js';
import { SettingsStore } from './settings.js';
import { appVersion } from './util/app-root.js';
import { streamOptionsFor } from './sessions/stream-options.js';
import { applyVadChoice } from './vad/vad-choice.js';
import { checkRegularFile, notRegularMessage } from './util/regular-file.js';
import { CodedError } from '../../types/errors.js';

export type { PlatformHooks, Services, ServicesCore, ServicesOptions } from './service-types.js';

export async function createServices(options: ServicesOptions): Promise<Services> {
  const lock = await acquireInstanceLock(path.resolve(options.userDataDir), { mode: options.mode });
  try {
    return await createServicesLocked(options, lock);
  } catch (error) {
    await lock.release().catch(() => undefined);
    throw error;
  }
}

async function createServicesLocked(options: ServicesOptions, lock: InstanceLock): Promise<Services> {
  const userDataDir = path.resolve(options.userDataDir);
  const { logSink, log } = createLogging(options, userDataDir);
  log.info(`starting (${options.mode}, ${process.platform}/${process.arch}, node ${process.versions.node}, pid ${process.pid})`);
  const bus = new EventBus(log.child('events'));
  const settings = await SettingsStore.open(userDataDir, log.child('settings'));
  const notices: Notice[] = [...settings.loadNotices];

  // The registry decides the device after a crash, and a running dictation holds the model through its
  // pauses: both exist only after the host, so the host asks through these late-bound references.
  const late: { devices: DeviceRegistry | null; sessions: SessionManager | null } = { devices: null, sessions: null };
  const engine = createEngineHost(options, settings, log, late);
  const loadOptions = (): EngineLoadOptions => {
    const s = settings.get();
    return { device: late.devices?.effectiveDevice(), threads: s.threads || autoThreads(), weightType: s.weightType };
  };
  // Every load asks the registry again when it runs (EngineHost.loadModel's deviceAtLoad).
  const deviceAtLoad = (path: string): string | undefined => late.devices?.effectiveDevice(path);
  const reloadModel = modelReloader(engine, loadOptions, deviceAtLoad);
  const devices = new DeviceRegistry({
    engine, settings, bus, log: log.child('devices'), reloadModel,
    // The engine (inline, or a child with this process's environment) reads the same variable.
    environmentDevice: () => process.env.PARAKEET_DEVICE,
  });
  late.devices = devices;

  const models = await openModelManager(options, userDataDir, settings, engine);
  const history = await openHistory(userDataDir, settings, engine, bus, log);
  if (history.recoveredAtStart) notices.push(recoveredNotice(history.recoveredAtStart));
  const sessions = await createSessions(options, userDataDir, engine, bus, settings, log, history);
  late.sessions = sessions;
  const insert = new DictationInsert({
    bus,
    inserter: createTextInserter({ env: options.insertEnv, clipboard: options.platform?.clipboard }),
    settings: () => settings.get().insert,
    trailingSpace: () => settings.get().text.trailingSpace,
    requirements: () => checkInsertRequirements({
      platform: process.platform,
      env: options.insertEnv ?? process.env,
      ownClipboard: options.platform?.clipboard !== undefined,
      accessibilityTrusted: options.platform?.accessibilityTrusted,
    }),
    ownWindowFocused: options.platform?.ownWindowFocused,
    log: log.child('insert'),
  });
  const uploads = await UploadStore.open(path.join(userDataDir, 'uploads'), log.child('uploads'), options.uploadLimits);
  const meetings = new MeetingService({
    history,
    engine,
    refineSpeakers: (entryId, words) => history.refineSpeakers(entryId, words),
    emit: (event, data) => bus.emit(event, data),
    notify: (notice) => bus.emit('notice', notice),
    log: log.child('meeting'),
    settings: () => ({
      dictation: settings.get().dictation, decoder: settings.get().decoder, vocabulary: settings.get().text.vocabulary,
      diarizeMicrophone: settings.get().diarizeMicrophone,
    }),
    systemAudio: systemAudioStarter(options.soundServerEnv),
    dictationLive: () => sessions.running > 0,
    stream: () => {
      const model = engine.loadedModel;
      if (!model?.streaming) return undefined;
      return { decoder: engine, options: streamOptionsFor(model, settings.get().streaming, (m) => log.warn(m)) };
    },
    systemAudioPlan: systemAudioPlan({ platform: process.platform, osRelease: os.release(), electron: process.versions.electron }),
  });
  if (history.recoveredMeetingsAtStart) {
    notices.push({
      level: 'info',
      code: 'MEETING_RECOVERED',
      message: `The app stopped during ${history.recoveredMeetingsAtStart === 1 ? 'a meeting' : `${history.recoveredMeetingsAtStart} meetings`} last time; ` +
        'its audio up to then and every final transcribed before it are in History, marked "recovered".',
    });
  }
  const files = new FileTranscriber({
    engine, bus, settings, log: log.child('files'), onTranscribed: (t) => history.recordFile(t), converterSearchPath: options.converterSearchPath,
  });

  const modelsState = async (): Promise<ModelsState> => ({
    installed: await models.listInstalled(),
    activeId: models.getActive(),
    downloads: models.listDownloads(),
  });
  // The VAD follows the model: a parakeet.cpp bundle with a "vad" component brings its own Silero.
  let vadFrom: string | null = null;
  // One application at a time, each reading the model when it runs: the startup one (which may convert the
  // bundled weights first) cannot land after, and undo, the one a bundle's load queued.
  let vadQueue: Promise<void> = Promise.resolve();
  const applyVad = (choice: VadModelChoice): Promise<void> => {
    const run = async (): Promise<void> => {
      const model = engine.loadedModel;
      vadFrom = model?.path ?? null;
      await applyVadChoice(engine, choice, userDataDir, log.child('vad'), model);
    };
    vadQueue = vadQueue.then(run, run);
    return vadQueue;
  };
  const followModel = async (): Promise<void> => {
    const model = engine.loadedModel;
    const bringsOwn = model?.components.some((c) => c.kind === 'vad') ?? false;
    const runsBundles = engine.vadStatus.kind === 'silero' && Boolean(engine.vadStatus.bundleComponent);
    // Only when the VAD's source changes: to a bundle that carries one, or away from it.
    if ((bringsOwn || runsBundles) && model?.path !== vadFrom) await applyVad(settings.get().dictation.vadModel);
  };
  const loadModel = async (file: string, modelId: string | null = null): Promise<void> => {
    const installedId = modelId ?? (await models.listInstalled()).find((m) => path.resolve(models.modelPath(m.id)) === path.resolve(file))?.id ?? null;
    await engine.loadModel(file, { ...loadOptions(), modelId: installedId, deviceAtLoad });
    await followModel();
  };
  // A file the user opened: loaded, then listed by reference and made active, so it is not forgotten (issue 44 item 1).
  const openModelFile = async (file: string): Promise<void> => {
    const absolute = path.resolve(file);
    await checkOpenedFile(absolute);
    const installedId = (await models.listInstalled()).find((m) => path.resolve(models.modelPath(m.id)) === absolute)?.id ?? null;
    const info = await engine.loadModel(absolute, { ...loadOptions(), modelId: installedId, deviceAtLoad });
    await followModel();
    if (installedId) await models.setActive(installedId);
    else {
      const linked = await models.linkFile(absolute, toValidatedModelInfo(absolute, info));
      engine.adoptModelId(linked.id);
    }
  };
  const activateModel = async (id: string): Promise<void> => {
    // Load first: the active model is one that works.
    await loadModel(models.modelPath(id), id);
    await models.setActive(id);
  };

  wireServiceEvents({
    options, log, bus, engine, models, settings, history, activateModel, reloadModel,
    applyVad,
  });

  await engine.start();
  await devices.refresh();
  // The VAD loads beside the model: until it is there (a few ms), sessions use the energy VAD.
  void applyVad(settings.get().dictation.vadModel);
  if (settings.get().diarizerPath !== null) void applyDiarizer(engine, settings.get().diarizerPath, bus, log.child('diarizer'));

  const info = (): AppInfo => appInfo(options, engine, logSink, userDataDir);
  const startupModel = loadStartupModel(options, engine, models, loadModel, log, (notice) => {
    notices.push(notice);
    bus.emit('notice', notice);
  });
  // Interrupted downloads continue where they stopped.
  models.resumePending().catch((error: unknown) => log.warn('could not resume downloads', error));

  const core: ServicesCore = {
    options,
    userDataDir,
    log,
    logSink,
    bus,
    settings,
    engine,
    devices,
    models,
    sessions,
    files,
    uploads,
    history,
    meetings,
    insert,
    mediaKey: randomBytes(32).toString('base64url'),
    ready: startupModel(),
    info,
    modelsState,
    machineSpeed: speedProbe(engine, loadOptions, log),
    loadOptions,
    loadModel,
    openModelFile,
    activateModel,
    startupNotices: () => [...notices],
    async dispose() {
      log.info('shutting down');
      await sessions.dispose();
      await meetings.dispose();
      insert.dispose();
      await history.dispose();
      files.dispose();
      await uploads.dispose();
      await models.dispose();
      await engine.dispose();
      await logSink.close();
      await lock.release();
    },
  };
  const router = new Router(createHandlers(core, options.platform ?? {}), log.child('ipc'));
  return { ...core, router };
}

// ---------------------------------------------------------------- the constructors

function createLogging(options: ServicesOptions, userDataDir: string): { logSink: LogSink; log: Logger } {
  const envLevel = process.env.PARAKEET_LOG_LEVEL;
  const logSink = new LogSink({
    dir: path.join(userDataDir, 'logs'),
    level: options.logLevel ?? (isLogLevel(envLevel) ? envLevel : 'info'),
    mirrorToStderr: options.logToStderr,
  });
  return { logSink, log: createLogger(logSink) };
}

function createEngineHost(
  options: ServicesOptions,
  settings: SettingsStore,
  log: Logger,
  late: { devices: DeviceRegistry | null; sessions: SessionManager | null },
): EngineHost {
  const initial = settings.get();
  const engineMode = options.engineMode ?? initial.engineMode;
  return new EngineHost({
    mode: engineMode,
    log: log.child('engine'),
    transport: engineMode === 'process' ? options.engineTransport : undefined,
    // undefined: the engine's own choice, as at the first load (Auto, or $PARAKEET_DEVICE); before the registry
    // exists nothing can say which device failed, so the CPU.
    deviceAfterCrash: () => (late.devices ? late.devices.effectiveDevice() : 'CPU'),
    autoSkips: (device) => late.devices?.autoSkips(device) ?? false,
    autoDevice: () => late.devices?.autoChoice() ?? null,
    idleUnloadMs: initial.idleUnloadMinutes * 60_000,
    inUse: () => (late.sessions?.running ?? 0) > 0,
  });
}

/**
 * A device switch asks for a reload twice: the settings listener sees the device change, and
 * DeviceRegistry.select must wait for the model to be on the new device. A reload with exactly the
 * options of the one in flight joins it, so each switch loads the model once.
 */
function modelReloader(engine: EngineHost, loadOptions: () => EngineLoadOptions, deviceAtLoad: (path: string) => string | undefined): () => Promise<void> {
  let reloading: { key: string; done: Promise<void> } | null = null;
  return () => {
    const current = engine.loadedModel;
    if (!current) return Promise.resolve();
    const options = { ...loadOptions(), modelId: engine.status().modelId };
    const key = JSON.stringify([current.path, options]);
    if (reloading?.key === key) return reloading.done;
    // The key holds the device as queued (a reload for another choice is another reload); the load asks again when it runs.
    const entry = { key, done: engine.loadModel(current.path, { ...options, deviceAtLoad }).then(() => undefined) };
    reloading = entry;
    const clear = (): void => {
      if (reloading === entry) reloading = null;
    };
    entry.done.then(clear, clear);
    return entry.done;
  };
}

function openModelManager(options: ServicesOptions, userDataDir: string, settings: SettingsStore, engine: EngineHost): Promise<ModelManager> {
  return ModelManager.create({
    ...options.modelManager,
    modelsDir: path.join(userDataDir, 'models'),
    validateModel: engineValidator(engine),
    endpoint: options.modelEndpoint ?? settings.get().mirrorEndpoint,
    network: { ...options.modelManager?.network, ...(options.extraCa ? { ca: options.extraCa } : {}) },
  });
}

/** Every dictation and file transcript, kept on disk; a dictation the app stopped during is recovered here. */
function openHistory(userDataDir: string, settings: SettingsStore, engine: EngineHost, bus: EventBus, log: Logger): Promise<HistoryService> {
  return HistoryService.open({
    dir: path.join(userDataDir, 'history'),
    settings: () => settings.get().history,
    model: () => {
      const status = engine.status();
      return { id: status.modelId, name: status.model ? status.model.name || path.basename(status.model.path) : null };
    },
    emit: (change) => bus.emit('history:changed', change),
    notify: (notice) => bus.emit('notice', notice),
    log: log.child('history'),
  });
}

function recoveredNotice(count: number): Notice {
  return {
    level: 'info',
    code: 'HISTORY_RECOVERED',
    message: `The app stopped during ${count === 1 ? 'a dictation' : `${count} dictations`} last time; ` +
      'everything transcribed up to then is in History, marked "recovered".',
  };
}

/** Long sessions spill old audio to <userData>/sessions; what a previous run left behind (it crashed) is removed first. */
async function createSessions(
  options: ServicesOptions, userDataDir: string, engine: EngineHost, bus: EventBus, settings: SettingsStore, log: Logger,
  history: HistoryService,
): Promise<SessionManager> {
  const spillDir = path.join(userDataDir, 'sessions');
  await fs.rm(spillDir, { recursive: true, force: true }).catch((error: unknown) => log.warn('cannot clear the session folder', error));
  return new SessionManager({
    engine, bus, settings, log: log.child('sessions'), spillDir, retainAudio: options.retainSessionAudio,
    realTimeSlackSec: options.dictationRealTimeSlackSec, observer: history, streamDecoder: engine,
  });
}

function appInfo(options: ServicesOptions, engine: EngineHost, logSink: LogSink, userDataDir: string): AppInfo {
  const build = engine.buildInfo;
  return {
    name: 'Parakeet Desktop',
    version: appVersion(),
    mode: options.mode,
    platform: process.platform,
    arch: process.arch,
    engineAvailable: engine.engineAvailable,
    ggml: build ? { version: build.ggmlVersion, commit: build.ggmlCommit, source: build.ggmlSource, backends: build.backends } : null,
    logFile: logSink.file,
    userDataDir,
  };
}

/** A file the user typed or picked: "not found" when it is not there, not the engine's verdict on a model. */
async function checkOpenedFile(file: string): Promise<void> {
  let check: Awaited<ReturnType<typeof checkRegularFile>>;
  try {
    check = await checkRegularFile(file);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new CodedError('NOT_FOUND', `${file} was not found.`);
    throw new CodedError('IO_ERROR', `${file} cannot be read (${(error as Error).message}).`);
  }
  if (check.kind === 'not-regular') throw new CodedError('MODEL_INVALID', `${notRegularMessage(file, check.what)} Choose a .gguf model file.`);
  if (check.kind === 'empty') throw new CodedError('MODEL_INVALID', `${file} is empty (0 bytes), so it is not a model.`);
}

/** The start-up model: options.modelPath, else the active installed model; a failure becomes a notice. */
function loadStartupModel(
  options: ServicesOptions, engine: EngineHost, models: ModelManager, loadModel: (file: string, modelId?: string | null) => Promise<void>,
  log: Logger, notify: (notice: Notice) => void,
): () => Promise<void> {
  return async () => {
    if (!engine.engineAvailable) return;
    try {
      if (options.modelPath) await loadModel(path.resolve(options.modelPath));
      else {
        const active = models.getActive();
        if (active) await loadModel(models.modelPath(active), active);
      }
    } catch (error) {
      log.warn('the start-up model could not be loaded', error);
      notify({
        level: 'warning',
        code: (error as { code?: string }).code ?? 'MODEL_INVALID',
        message: `The model could not be loaded: ${(error as Error).message}`,
        action: 'Choose another model in Models.',
      });
    }
  };
}

/** This CPU's speed class, measured once in the engine (again after a failed probe). */
function speedProbe(engine: EngineHost, loadOptions: () => EngineLoadOptions, log: Logger): () => Promise<MachineSpeed | null> {
  let speed: Promise<MachineSpeed | null> | null = null;
  return () => {
    speed ??= engine.probeSpeed(loadOptions().threads ?? autoThreads())
      .then((r) => machineSpeed(r.gflops, r.threads))
      .catch((error: unknown) => {
        log.warn('the CPU speed probe failed', error);
        speed = null;
        return null;
      });
    return speed;
  };
}

/**
 * Engine threads when the setting is 0 (automatic): every hardware thread but one. ggml's worker threads
 * spin at their barriers; with all cores taken, the main process and the renderer preempt them and a
 * decode stalls. Measured on 2 cores (110M Q8_0, live dictation): 1 thread gives p95 first partial
 * 335 ms / final 167 ms after the pause; 2 threads 999 ms / 1105 ms.
 */
export function autoThreads(): number {
  return Math.max(1, os.availableParallelism() - 1);
}

/** Where main captures the system audio itself: Linux (the sound server's monitor); elsewhere the renderer's loopback would. */
function systemAudioStarter(env: NodeJS.ProcessEnv | undefined): SystemAudioStarter | null {
  return process.platform === 'linux' ? linuxSystemAudio(env ?? process.env) : null;
}

/** Electron's userData layout for web mode: ${XDG_CONFIG_HOME:-~/.config}/parakeet-desktop (per OS conventions elsewhere). */
export function defaultUserDataDir(): string {
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', 'parakeet-desktop');
  if (process.platform === 'win32') return path.join(process.env.APPDATA ?? path.join(os.homedir(), 'AppData', 'Roaming'), 'parakeet-desktop');
  return path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'parakeet-desktop');
}

export type { Settings };
