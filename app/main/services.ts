// The main process's service graph, Electron-free: settings, logger, event
// bus, engine host, device registry, model manager, dictation sessions, file
// jobs, the history and the IPC router. The Electron adapter (index.ts, ipc.ts) and the
// web bridge (app/web) build exactly this and only differ in transport and in
// the few platform hooks (open a folder, pick a file).
import { acquireInstanceLock, type InstanceLock } from './util/instance-lock.js';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AppInfo, ModelsState, Notice, Settings } from '../ipc/contract.js';
import { DeviceRegistry } from './devices/device-registry.js';
import { EngineHost } from './engine/engine-host.js';
import type { EngineLoadOptions } from './engine/protocol.js';
import type { TransportFactory } from './engine/transport.js';
import { EventBus } from './events.js';
import { FileTranscriber } from './files/file-transcriber.js';
import { UploadStore, type UploadLimits } from './files/uploads.js';
import { createHandlers } from './handlers.js';
import { HistoryService } from './history/history-service.js';
import type { Clipboard } from './insert/clipboard.js';
import { createTextInserter } from './insert/create.js';
import { DictationInsert } from './insert/dictation-insert.js';
import { checkInsertRequirements } from './insert/requirements.js';
import { linuxSystemAudio, type SystemAudioStarter } from './meeting/system-audio.js';
import { MeetingService } from './meeting/meeting-service.js';
import { LogSink, createLogger, isLogLevel, type LogLevel, type Logger } from './log.js';
import { engineValidator } from './model-validation.js';
import { ModelManager, type ModelManagerOptions } from './models/index.js';
import { machineSpeed } from './models/machine-speed.js';
import type { MachineSpeed } from './models/types.js';
import { Router } from './router.js';
import { SessionManager } from './sessions/session-manager.js';
import { SettingsStore } from './settings.js';
import { appVersion } from './util/app-root.js';

/** What only the host platform can do; absent hooks answer NOT_SUPPORTED. */
export interface PlatformHooks {
  /** Show a folder or file in the OS file manager (Electron: shell.openPath). */
  openPath?: (target: string) => Promise<void>;
  /** A native "open .gguf" dialog (Electron: dialog.showOpenDialog). */
  pickModelFile?: () => Promise<string | null>;
  /** A native "open .wav" dialog for file transcription. */
  pickAudioFile?: () => Promise<string | null>;
  /** UI language for the first-run proposal (Electron: app.getLocale()). */
  locale?: () => string;
  /** Electron's clipboard module (no xclip/wl-clipboard needed); absent: the OS tools. */
  clipboard?: Clipboard;
  /** Electron: our window has focus, so finals are not inserted (they are shown there already). */
  ownWindowFocused?: () => boolean;
  /** macOS: whether the app may send keystrokes (systemPreferences.isTrustedAccessibilityClient(false)). */
  accessibilityTrusted?: () => boolean;
}

export interface ServicesOptions {
  userDataDir: string;
  mode: 'electron' | 'web';
  /** Where ffmpeg/sox are looked for to convert non-WAV files (default: $PATH); tests narrow it. */
  converterSearchPath?: string;
  /** Overrides settings.engineMode (tests, --inline). */
  engineMode?: 'process' | 'inline';
  /** Electron: utilityProcess transport; default: a forked Node process (or inline). */
  engineTransport?: TransportFactory;
  /** Enable the engine's crash trigger (tests). */
  testHooks?: boolean;
  /** Load this .gguf at start (tests, --model). */
  modelPath?: string;
  /** Extra CA (PEM) for model downloads (tests with a local HTTPS server, corporate proxies). */
  extraCa?: string;
  /** Mirror base URL for model downloads; overrides settings.mirrorEndpoint for this run. */
  modelEndpoint?: string;
  /** Model manager options for tests (retry timing, catalog, …). */
  modelManager?: Partial<Omit<ModelManagerOptions, 'modelsDir' | 'validateModel'>>;
  /** Keep dictation audio after stop (tests). */
  retainSessionAudio?: boolean;
  logLevel?: LogLevel;
  /** Mirror log lines to stderr. */
  logToStderr?: boolean;
  platform?: PlatformHooks;
  /** The environment the insert tools run in (tests: an Xvfb DISPLAY); default process.env. */
  insertEnv?: NodeJS.ProcessEnv;
  /** Web-mode upload limits (tests make them small). */
  uploadLimits?: Partial<UploadLimits>;
  /** The environment parec/pw-record run in for a meeting's system audio (tests: a PulseAudio of their own); default process.env. */
  soundServerEnv?: NodeJS.ProcessEnv;
}

export interface Services {
  readonly options: ServicesOptions;
  readonly userDataDir: string;
  readonly log: Logger;
  readonly logSink: LogSink;
  readonly bus: EventBus;
  readonly settings: SettingsStore;
  readonly engine: EngineHost;
  readonly devices: DeviceRegistry;
  readonly models: ModelManager;
  readonly sessions: SessionManager;
  readonly files: FileTranscriber;
  /** Files uploaded over the web bridge (<userData>/uploads). */
  readonly uploads: UploadStore;
  readonly history: HistoryService;
  /** Meeting mode: the microphone and the system audio, journaled and transcribed live (app/main/meeting). */
  readonly meetings: MeetingService;
  /** Finals into the focused application (settings.insert). */
  readonly insert: DictationInsert;
  readonly router: Router;
  /** Resolves once the start-up model (options.modelPath, else the active installed model) is loaded or failed. */
  readonly ready: Promise<void>;
  info(): AppInfo;
  modelsState(): Promise<ModelsState>;
  /** This CPU's speed class for the first-run proposal (measured once in the engine; null without an engine). */
  machineSpeed(): Promise<MachineSpeed | null>;
  /** Load options from the settings and the device registry. */
  loadOptions(): EngineLoadOptions;
  /** Loads a model file as the resident model (with the installed id when it is one). */
  loadModel(file: string, modelId?: string | null): Promise<void>;
  /** Loads an installed model and makes it the active one. */
  activateModel(id: string): Promise<void>;
  /** Start-up notices (settings reset, model not loadable, …): each newly connected client gets them once. */
  startupNotices(): Notice[];
  dispose(): Promise<void>;
}

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
  const envLevel = process.env.PARAKEET_LOG_LEVEL;
  const logSink = new LogSink({
    dir: path.join(userDataDir, 'logs'),
    level: options.logLevel ?? (isLogLevel(envLevel) ? envLevel : 'info'),
    mirrorToStderr: options.logToStderr,
  });
  const log = createLogger(logSink);
  log.info(`starting (${options.mode}, ${process.platform}/${process.arch}, node ${process.versions.node}, pid ${process.pid})`);
  const bus = new EventBus(log.child('events'));
  const settings = await SettingsStore.open(userDataDir, log.child('settings'));
  const initial = settings.get();
  const engineMode = options.engineMode ?? initial.engineMode;
  const notices: Notice[] = [...settings.loadNotices];

  // The registry decides the device after a crash; it is created right after the host.
  let devices: DeviceRegistry | null = null;
  // A running dictation holds the model through its pauses (no decode runs while nobody speaks).
  let sessions: SessionManager | null = null;
  const engine = new EngineHost({
    mode: engineMode,
    log: log.child('engine'),
    transport: engineMode === 'process' ? options.engineTransport : undefined,
    testHooks: options.testHooks,
    deviceAfterCrash: () => devices?.effectiveDevice() ?? 'CPU',
    idleUnloadMs: initial.idleUnloadMinutes * 60_000,
    inUse: () => (sessions?.running ?? 0) > 0,
  });

  const loadOptions = (): EngineLoadOptions => {
    const s = settings.get();
    return { device: devices?.effectiveDevice(), threads: s.threads || autoThreads(), weightType: s.weightType };
  };

  // A device switch asks for a reload twice: the settings listener below sees the device change, and
  // DeviceRegistry.select must wait for the model to be on the new device. A reload with exactly the
  // options of the one in flight joins it, so each switch loads the model once.
  let reloading: { key: string; done: Promise<void> } | null = null;
  const reloadModel = (): Promise<void> => {
    const current = engine.loadedModel;
    if (!current) return Promise.resolve();
    const options = { ...loadOptions(), modelId: engine.status().modelId };
    const key = JSON.stringify([current.path, options]);
    if (reloading?.key === key) return reloading.done;
    const entry = { key, done: engine.loadModel(current.path, options).then(() => undefined) };
    reloading = entry;
    const clear = (): void => {
      if (reloading === entry) reloading = null;
    };
    entry.done.then(clear, clear);
    return entry.done;
  };

  devices = new DeviceRegistry({ engine, settings, bus, log: log.child('devices'), reloadModel });

  const models = await ModelManager.create({
    ...options.modelManager,
    modelsDir: path.join(userDataDir, 'models'),
    validateModel: engineValidator(engine),
    endpoint: options.modelEndpoint ?? initial.mirrorEndpoint,
    network: { ...options.modelManager?.network, ...(options.extraCa ? { ca: options.extraCa } : {}) },
  });

  // Every dictation and file transcript, kept on disk; a dictation the app stopped during is recovered here.
  const history = await HistoryService.open({
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
  if (history.recoveredAtStart) {
    notices.push({
      level: 'info',
      code: 'HISTORY_RECOVERED',
      message: `The app stopped during ${history.recoveredAtStart === 1 ? 'a dictation' : `${history.recoveredAtStart} dictations`} last time; ` +
        'everything transcribed up to then is in History, marked "recovered".',
    });
  }

  // Long sessions spill old audio here; what a previous run left behind (it crashed) is removed first.
  const spillDir = path.join(userDataDir, 'sessions');
  await fs.rm(spillDir, { recursive: true, force: true }).catch((error: unknown) => log.warn('cannot clear the session folder', error));
  sessions = new SessionManager({
    engine, bus, settings, log: log.child('sessions'), spillDir, retainAudio: options.retainSessionAudio, observer: history,
  });
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
    emit: (event, data) => bus.emit(event, data),
    notify: (notice) => bus.emit('notice', notice),
    log: log.child('meeting'),
    settings: () => ({ dictation: settings.get().dictation, decoder: settings.get().decoder }),
    systemAudio: systemAudioStarter(options.soundServerEnv),
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

  const loadModel = async (file: string, modelId: string | null = null): Promise<void> => {
    const installedId = modelId ?? (await models.listInstalled()).find((m) => path.resolve(models.modelPath(m.id)) === path.resolve(file))?.id ?? null;
    await engine.loadModel(file, { ...loadOptions(), modelId: installedId });
  };

  const activateModel = async (id: string): Promise<void> => {
    // Load first: the active model is one that works.
    await loadModel(models.modelPath(id), id);
    await models.setActive(id);
  };

  // ---- events into the bus
  engine.on('status', (status) => bus.emit('engine:status', status));
  engine.on('notice', (notice) => bus.emit('notice', notice));
  models.on('progress', (p) => bus.emit('models:progress', p));
  models.on('state', (s) => bus.emit('models:state', s));
  models.on('warning', (w) => bus.emit('notice', { level: 'warning', code: 'MODEL_WARNING', message: w.message }));
  models.on('installed', ({ installed, activeId }) => {
    bus.emit('models:changed', { installed, activeId, downloads: models.listDownloads() });
    // The first model the user installs becomes the active one: nothing else to choose from.
    if (activeId === null && !engine.loadedModel && installed.length === 1) {
      activateModel(installed[0]!.id).catch((error: unknown) => log.warn('could not activate the first installed model', error));
    }
  });
  settings.on('changed', ({ next, previous }) => {
    history.settingsChanged(next.history, previous.history);
    if (next.mirrorEndpoint !== previous.mirrorEndpoint && !options.modelEndpoint) models.setEndpoint(next.mirrorEndpoint);
    const reload = next.threads !== previous.threads || next.weightType !== previous.weightType;
    // Every reload starts here (settings:set and devices:select alike); DeviceRegistry.select joins it.
    if ((reload || next.device !== previous.device) && engine.loadedModel) {
      reloadModel().catch((error: unknown) => log.warn('reload after a settings change failed', error));
    }
    if (next.idleUnloadMinutes !== previous.idleUnloadMinutes) engine.setIdleUnload(next.idleUnloadMinutes * 60_000);
    if (next.engineMode !== previous.engineMode) {
      bus.emit('notice', {
        level: 'info',
        code: 'RESTART_REQUIRED',
        message: `The engine will run ${next.engineMode === 'inline' ? 'inside the app' : 'in its own process'} after the app restarts.`,
      });
    }
  });

  await engine.start();
  await devices.refresh();

  const info = (): AppInfo => {
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
  };

  const startupModel = async (): Promise<void> => {
    if (!engine.engineAvailable) return;
    try {
      if (options.modelPath) await loadModel(path.resolve(options.modelPath));
      else {
        const active = models.getActive();
        if (active) await loadModel(models.modelPath(active), active);
      }
    } catch (error) {
      log.warn('the start-up model could not be loaded', error);
      const notice: Notice = {
        level: 'warning',
        code: (error as { code?: string }).code ?? 'MODEL_INVALID',
        message: `The model could not be loaded: ${(error as Error).message}`,
        action: 'Choose another model in Models.',
      };
      notices.push(notice);
      bus.emit('notice', notice);
    }
  };
  // Interrupted downloads continue where they stopped.
  models.resumePending().catch((error: unknown) => log.warn('could not resume downloads', error));

  let speed: Promise<MachineSpeed | null> | null = null;
  const partial: Omit<Services, 'router'> = {
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
    ready: startupModel(),
    info,
    modelsState,
    machineSpeed: () => {
      speed ??= engine.probeSpeed(loadOptions().threads ?? autoThreads())
        .then((r) => machineSpeed(r.gflops, r.threads))
        .catch((error: unknown) => {
          log.warn('the CPU speed probe failed', error);
          speed = null;
          return null;
        });
      return speed;
    },
    loadOptions,
    loadModel,
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
  const router = new Router(createHandlers(partial, options.platform ?? {}), log.child('ipc'));
  return { ...partial, router };
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
