// The service graph's events: engine and model-manager events into the bus,
// and what a settings change sets off (history retention, the download
// endpoint, a model reload, the idle-unload time, a restart notice).
import { toEngineStatus } from './contract-mapping.js';
import type { Notice, VadModelChoice } from '../ipc/contract.js';
import type { EngineHost } from './engine/engine-host.js';
import type { EventBus } from './events.js';
import type { HistoryService } from './history/history-service.js';
import type { Logger } from './log.js';
import type { ModelManager } from './models/index.js';
import type { ServicesOptions } from './service-types.js';
import type { SettingsStore } from './settings.js';

export interface ServiceWiring {
  options: ServicesOptions;
  log: Logger;
  bus: EventBus;
  engine: EngineHost;
  models: ModelManager;
  settings: SettingsStore;
  history: HistoryService;
  activateModel(id: string): Promise<void>;
  reloadModel(): Promise<void>;
  /** Loads the chosen VAD in the engine (Silero or none); never throws. */
  applyVad(choice: VadModelChoice): Promise<void>;
}

export function wireServiceEvents(w: ServiceWiring): void {
  const { options, log, bus, engine, models, settings, history } = w;
  engine.on('status', (status) => bus.emit('engine:status', toEngineStatus(status)));
  engine.on('notice', (notice) => bus.emit('notice', notice));
  models.on('progress', (p) => bus.emit('models:progress', p));
  models.on('state', (s) => bus.emit('models:state', s));
  models.on('importProgress', (p) => bus.emit('models:importProgress', p));
  models.on('warning', (warning) => bus.emit('notice', { level: 'warning', code: 'MODEL_WARNING', message: warning.message }));
  models.on('installed', ({ installed, activeId }) => {
    bus.emit('models:changed', { installed, activeId, downloads: models.listDownloads() });
    // The first model the user installs becomes the active one: nothing else to choose from.
    if (activeId === null && !engine.loadedModel && installed.length === 1) {
      w.activateModel(installed[0]!.id).catch((error: unknown) => log.warn('could not activate the first installed model', error));
    }
  });
  settings.on('changed', ({ next, previous }) => {
    history.settingsChanged(next.history, previous.history);
    if (next.mirrorEndpoint !== previous.mirrorEndpoint && !options.modelEndpoint) models.setEndpoint(next.mirrorEndpoint);
    const reload = next.threads !== previous.threads || next.weightType !== previous.weightType;
    // Every reload starts here (settings:set and devices:select alike); DeviceRegistry.select joins it.
    if ((reload || next.device !== previous.device) && engine.loadedModel) {
      w.reloadModel().catch((error: unknown) => log.warn('reload after a settings change failed', error));
    }
    if (next.dictation.vadModel !== previous.dictation.vadModel) void w.applyVad(next.dictation.vadModel);
    if (next.diarizerPath !== previous.diarizerPath) void applyDiarizer(engine, next.diarizerPath, bus, log);
    if (next.idleUnloadMinutes !== previous.idleUnloadMinutes) engine.setIdleUnload(next.idleUnloadMinutes * 60_000);
    if (next.engineMode !== previous.engineMode) {
      bus.emit('notice', {
        level: 'info',
        code: 'RESTART_REQUIRED',
        message: `The engine will run ${next.engineMode === 'inline' ? 'inside the app' : 'in its own process'} after the app restarts.`,
      });
    }
  });
}

/** Loads the chosen speaker diarizer in the engine; a file that is not one is named in a notice (meetings then keep "Others"). */
export async function applyDiarizer(engine: EngineHost, path: string | null, bus: { emit(event: 'notice', data: Notice): void }, log: Logger): Promise<void> {
  try {
    await engine.setDiarizer(path);
  } catch (error) {
    const message = `The speaker model could not be loaded (${(error as Error).message}); meetings keep one "Others" speaker.`;
    log.warn(message);
    bus.emit('notice', { level: 'warning', code: 'DIARIZER_INVALID', message });
  }
}
