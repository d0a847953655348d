// The service graph's types: what the platform adapters give (PlatformHooks),
// what a caller asks for (ServicesOptions) and what it gets (Services). Apart
// from services.ts, so handlers.ts and the adapters depend on this shape, not
// on the module that builds it (no services.ts ↔ handlers.ts import circle).
import type { AppInfo, ModelFilePurpose, ModelsState, Notice } from '../ipc/contract.js';
import type { DeviceRegistry } from './devices/device-registry.js';
import type { EngineHost } from './engine/engine-host.js';
import type { EngineLoadOptions } from '../engine-process/protocol.js';
import type { TransportFactory } from './engine/transport.js';
import type { EventBus } from './events.js';
import type { FileTranscriber } from './files/file-transcriber.js';
import type { UploadLimits, UploadStore } from './files/uploads.js';
import type { HistoryService } from './history/history-service.js';
import type { Clipboard } from './insert/clipboard.js';
import type { DictationInsert } from './insert/dictation-insert.js';
import type { LogLevel, LogSink, Logger } from './log.js';
import type { ModelManager, ModelManagerOptions } from './models/index.js';
import type { MeetingService } from './meeting/meeting-service.js';
import type { MachineSpeed } from './models/types.js';
import type { Router } from './router.js';
import type { SessionManager } from './sessions/session-manager.js';
import type { SettingsStore } from './settings.js';

/** What only the host platform can do; absent hooks answer NOT_SUPPORTED. */
export interface PlatformHooks {
  /** Show a folder or file in the OS file manager (Electron: shell.openPath). */
  openPath?: (target: string) => Promise<void>;
  /** A native "open .gguf" dialog (Electron: dialog.showOpenDialog), titled and filtered for what the file is for. */
  pickModelFile?: (purpose: ModelFilePurpose) => Promise<string | null>;
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
  /** Audio a dictation may run ahead of the clock (s; default REAL_TIME_SLACK_SEC). Benches that play faster than real time lift it. */
  dictationRealTimeSlackSec?: number;
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

export interface Services extends ServicesCore {
  readonly router: Router;
}

/** Everything but the router (the handlers are built from this). */
export interface ServicesCore {
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
  /** Web mode: the per-start secret a media URL carries (app/main/media/media-url.ts); handed out only in history:media replies. */
  readonly mediaKey: string;
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
  /** Loads a file the user opened, lists it under Installed (by reference, models/linker.ts) and makes it active. */
  openModelFile(file: string): Promise<void>;
  /** Loads an installed model and makes it the active one. */
  activateModel(id: string): Promise<void>;
  /** Start-up notices (settings reset, model not loadable, …): each newly connected client gets them once. */
  startupNotices(): Notice[];
  dispose(): Promise<void>;
}

