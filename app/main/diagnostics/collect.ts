// app:diagnostics: gathers what runs where (system, runtime, engine build,
// devices, self-tests, the loaded model, settings, history size, the log's
// end) into one report. Electron-free: the services come in as parameters.
// It reads no transcript and no audio: the history gives only its entry count,
// and sessions and file jobs are not consulted at all.
import os from 'node:os';
import type { BuildInfo } from '../../../native/index.js';
import type {
  AppInfo, DevicesState, DiagnosticsData, DiagnosticsReport, HistoryList, HistoryListRequest, Settings,
} from '../../ipc/contract.js';
import { toEngineStatus, toModelDetails } from '../contract-mapping.js';
import type { EngineHostStatus } from '../engine/engine-host.js';
import { systemMemory } from '../util/memory.js';
import { formatDiagnostics } from './format.js';
import { tailLines } from './log-tail.js';
import { redactHome } from './redact.js';

export interface DiagnosticsSources {
  info(): AppInfo;
  engine: { status(): EngineHostStatus; readonly buildInfo: BuildInfo | null };
  devices: { state(): DevicesState };
  settings: { get(): Settings };
  history: { list(request: HistoryListRequest): Promise<HistoryList> };
  logSink: { readonly file: string; flush(): Promise<void> };
}

export interface DiagnosticsOptions {
  /** The folder shown as `~` (default os.homedir()). */
  homeDir?: string;
  /** Log lines included (default 200). */
  logLines?: number;
  now?: () => Date;
}

export async function collectDiagnostics(sources: DiagnosticsSources, options: DiagnosticsOptions = {}): Promise<DiagnosticsReport> {
  const info = sources.info();
  const build = sources.engine.buildInfo;
  // Lines still queued would be missing from the tail; the report should show what led up to it.
  await sources.logSink.flush();
  const [history, lines] = await Promise.all([
    sources.history.list({ limit: 1 }),
    tailLines(sources.logSink.file, options.logLines ?? 200),
  ]);
  const cpus = os.cpus();
  const status = sources.engine.status();
  const memory = systemMemory();
  const data: DiagnosticsData = {
    generatedAt: (options.now?.() ?? new Date()).toISOString(),
    app: { name: info.name, version: info.version, mode: info.mode },
    system: {
      platform: process.platform,
      arch: process.arch,
      release: os.release(),
      osVersion: os.version(),
      // Available as the OS defines it (Linux: MemAvailable), the figure Devices shows for the CPU.
      totalMemoryBytes: memory.totalBytes,
      freeMemoryBytes: memory.availableBytes,
      cpuModel: cpus[0]?.model.trim() ?? 'unknown',
      cpuCount: cpus.length,
    },
    runtime: {
      node: process.versions.node,
      v8: process.versions.v8,
      electron: process.versions.electron ?? null,
      chromium: process.versions.chrome ?? null,
    },
    engine: { status: toEngineStatus(status), model: status.model ? toModelDetails(status.model) : null, ggml: info.ggml, backendDl: build?.backendDl ?? null },
    devices: sources.devices.state(),
    settings: sources.settings.get(),
    history: { entries: history.total },
    log: { file: sources.logSink.file, lines },
  };
  const redacted = redactHome(data, options.homeDir ?? os.homedir());
  return { text: formatDiagnostics(redacted), data: redacted };
}
