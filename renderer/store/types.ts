// The shape of the one renderer store. Each slice is owned by one file in
// this folder (state + pure reducers); components only select from it and
// IPC events reach it through the module-level actions in actions.ts.
import type {
  AppInfo, CatalogEntry, DevicesState, DownloadProgress, DownloadSnapshot, EngineStatus, FileTranscript, FirstRunProposal,
  HistoryEntry, HistoryEntrySummary, HistoryKind, InsertDelivery, InstalledModel, LatencyReport, Notice, SessionState, SessionSummary, Settings,
  TranscriptEvent,
} from '../../app/ipc/contract.js';
import type { KeyLatency } from './key-latency.js';

export type View = 'dictate' | 'files' | 'history' | 'devices' | 'models' | 'settings' | 'meeting';

/** The renderer's side of a dictation session (the server has its own SessionState). */
export type SessionPhase = 'idle' | 'opening' | 'starting' | 'live' | 'stopping';

export interface SessionSlice {
  phase: SessionPhase;
  sessionId: string | null;
  /** Last state reported by the session manager. */
  serverState: SessionState | null;
  /** Live text is held up by this (engine work in words), from the session; null when on time. */
  delayedBy: string | null;
  /** Local input level 0..1 (from the captured frames, smoothed). */
  level: number;
  /** Key press / click to the first captured frame (ms), measured here. */
  pressToMicMs: number | null;
  latency: LatencyReport | null;
  /** The last final's delivery into the focused app (dictation:inserted), for the latency panel. */
  inserted?: InsertDelivery | null;
  lastSummary: SessionSummary | null;
  /** Microphone label while it is open. */
  micLabel: string | null;
  /** The mic stays open on the Dictate view so pre-roll audio exists before Start. */
  armed: boolean;
  /** The first run's microphone test holds the microphone open (the header's recording chip says so). */
  micTest?: boolean;
  /** Press → first text → inserted, of the newest session (key-latency.ts). */
  keyLatency?: KeyLatency | null;
}

export interface FinalSegment {
  sessionId: string;
  segmentId: number;
  text: string;
  start: number;
  end: number;
  devicesRan: string[];
  /** The language a multilingual streaming model detected or was told (shown with the sentence). */
  language?: string;
}

export interface TranscriptSlice {
  /** Final segments in session order, then segment order; never edited once here. */
  finals: FinalSegment[];
  /** The open segment's tentative text (may change), or null. */
  partial: TranscriptEvent | null;
}

export interface DevicesSlice {
  state: DevicesState | null;
  /** A device switch is in flight. */
  switching: string | null;
  /** A self-test is running on this device. */
  testing: string | null;
}

export interface ModelsSlice {
  catalog: CatalogEntry[];
  installed: InstalledModel[];
  activeId: string | null;
  downloads: Record<string, DownloadSnapshot>;
  progress: Record<string, DownloadProgress>;
  firstRun: FirstRunProposal | null;
  /** An import is in flight (path shown while copying/validating). */
  importing: string | null;
  /** A .nemo import's conversion progress (0..1); null before the first report and for a .gguf. */
  importProgress: number | null;
  /** The last import's outcome, shown next to Import: an error until the next try or edit; "Imported" expires. */
  importOutcome: { kind: 'ok' | 'error'; text: string } | null;
}

export type FileJobPhase = 'idle' | 'running' | 'done' | 'failed' | 'cancelled';

/** The file transcription this window started (one at a time). */
export interface FileJob {
  phase: FileJobPhase;
  path: string;
  /** Main's job id: from the first files:progress event (sent as the job starts) or the reply. */
  jobId: string | null;
  /** 0..1, never goes back. */
  fraction: number;
  /** Cancel pressed: 'requested' until the job id is known and files:cancel is sent, then 'sent'. */
  cancel: 'none' | 'requested' | 'sent';
  /** What went wrong (phase 'failed'). */
  error: string | null;
  /** When this window started the job (ms, Date.now): elapsed time survives switching views. */
  startedAt: number | null;
  /** The audio's length and how far the transcript is into it (from main's progress), when known. */
  durationSec: number | null;
  audioSec: number | null;
  /** Web mode: the file is being sent to the engine's machine first (renderer/bridge/upload.ts); null for a path. */
  upload: FileUpload | null;
}

export interface FileUpload {
  name: string;
  sizeBytes: number;
  /** Bytes the server has on disk. */
  receivedBytes: number;
  /** Every byte arrived; the transcription runs (or is about to). */
  done: boolean;
}

/** A finished transcript. Tokens are dropped: nothing shows them and they are the bulk of a long file's reply. */
export type FileResultTranscript = Omit<FileTranscript, 'tokens'>;

export interface FileResult {
  /** Local key: main's job ids restart with main, so they are not unique across a web-mode reconnect. */
  key: number;
  transcript: FileResultTranscript;
  /** The file's name as the user knows it; for an upload, the browser's file (the server's copy is gone). */
  name: string;
  /** Sent from this browser: there is no path on this machine to show. */
  uploaded: boolean;
  /** Date.now() when it arrived. */
  finishedAt: number;
}

export interface FilesSlice {
  job: FileJob;
  /** Files waiting for the running job to end, in order (commands.ts keeps what each one runs). */
  queue: { key: number; name: string }[];
  /** Newest first, at most MAX_FILE_RESULTS. */
  results: FileResult[];
  /** The result on screen (a key in results), or null. */
  shown: number | null;
  nextKey: number;
}

export interface HistorySlice {
  /** The search box's text (the list is read again shortly after it stops changing). */
  query: string;
  kind: HistoryKind | 'all';
  /** Newest first: the first `limit` entries matching query and kind. */
  entries: HistoryEntrySummary[];
  /** How many match in all. */
  total: number;
  limit: number;
  /** Number of the newest history:list request; a reply to an older one is dropped. */
  requested: number;
  /** A list request is in flight. */
  loading: boolean;
  /** The list was read at least once (before that the view says it is reading). */
  loaded: boolean;
  /** The entry shown in full, and its content once read. */
  openId: string | null;
  open: HistoryEntry | null;
}

export interface SettingsSlice {
  values: Settings | null;
  saving: boolean;
}

export type ConnectionState = 'connecting' | 'connected' | 'disconnected';

export interface EngineSlice {
  status: EngineStatus | null;
  app: AppInfo | null;
  /** How window.parakeet reaches main (known at start-up, before app:info answers). */
  mode: 'electron' | 'web' | null;
  /** Web mode: state of the bridge socket (Electron: always 'connected'). */
  connection: ConnectionState;
}

export interface NoticeItem extends Notice {
  id: number;
  /** Same key replaces an earlier notice instead of stacking (e.g. "engine", "mic"). */
  key: string;
  at: number;
}

export interface NoticesSlice {
  items: NoticeItem[];
  nextId: number;
}

export interface UiSlice {
  view: View;
}

export interface AppState {
  session: SessionSlice;
  transcript: TranscriptSlice;
  devices: DevicesSlice;
  models: ModelsSlice;
  files: FilesSlice;
  history: HistorySlice;
  settings: SettingsSlice;
  engine: EngineSlice;
  notices: NoticesSlice;
  ui: UiSlice;
}
