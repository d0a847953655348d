// The resident model: which file, with which options and id, and whether it
// was unloaded for idleness. One load() owns what a load does to the host's
// state, its error and the log, for each reason a load happens (the user's
// choice, the reload after an idle unload, the move after a failed self-test,
// the reload after a crash), so the four differ only where the reason does.
// The idle timer lives here too: after `idleMs` without use and with nothing
// holding the model, the host's lane unloads it.
import type { EngineState, IpcError } from '../../ipc/contract.js';
import type { ModelInfo } from '../../../native/index.js';
import type { Logger } from '../log.js';
import type { EngineLoadOptions, EngineRequest, EngineResponseMap } from '../../engine-process/protocol.js';
import type { CodedError } from '../../../types/errors.js';

/** Why a load happens: it decides the log line, the error handling and the state after a failure. */
export type LoadReason = 'user' | 'idle' | 'self-test' | 'device-failure' | 'restart';

interface ReasonRule {
  /** How the log names it after the model's name and device. */
  after: string;
  /** An ENGINE_CRASHED failure is left to the crash path: no error recorded, nothing logged or reset. */
  crashIsTheCrashPaths: boolean;
  /** The load ran in a fresh engine process: a failure leaves no model at all (else the engine kept the one it had). */
  freshEngine: boolean;
  /** A failure is logged as an error here (the other callers report it themselves). */
  logsFailure: string | null;
}

const RULES: Record<LoadReason, ReasonRule> = {
  user: { after: '', crashIsTheCrashPaths: false, freshEngine: false, logsFailure: null },
  idle: { after: ' after the idle unload', crashIsTheCrashPaths: false, freshEngine: false, logsFailure: null },
  'self-test': { after: ' after the failed self-test', crashIsTheCrashPaths: true, freshEngine: false, logsFailure: 'could not reload the model after the failed self-test' },
  'device-failure': { after: ' after the device failed', crashIsTheCrashPaths: true, freshEngine: false, logsFailure: 'could not reload the model after the device failed' },
  restart: { after: ' after the crash', crashIsTheCrashPaths: true, freshEngine: true, logsFailure: 'could not reload the model after the crash' },
};

/** What the residency may change in the host's status. */
export interface StatusCell {
  state(): EngineState;
  setState(state: EngineState): void;
  setLastError(error: IpcError | null): void;
}

export interface LoadSpec {
  path: string;
  options: EngineLoadOptions;
  reason: LoadReason;
  /** Installed-model id (a user's load only; the reloads keep the one they had). */
  modelId?: string | null;
  /** Sent while the host holds other requests back (the reload after a restart). */
  internal?: boolean;
}

export interface ResidencyDeps {
  log: Logger;
  status: StatusCell;
  request: <O extends 'load' | 'unload'>(request: Extract<EngineRequest, { op: O }>, how?: { internal?: boolean }) => Promise<EngineResponseMap[O]>;
}

export class ModelResidency {
  model: ModelInfo | null = null;
  modelId: string | null = null;
  path: string | null = null;
  options: EngineLoadOptions = {};
  /** Unloaded for idleness: `model`, `path` and `options` describe what to reload. */
  idleUnloaded = false;
  /** Loads that succeeded so far: a call can tell whether the model was replaced while it ran. */
  generation = 0;

  constructor(private readonly deps: ResidencyDeps) {}

  async load(spec: LoadSpec): Promise<ModelInfo> {
    const rule = RULES[spec.reason];
    const { status, log } = this.deps;
    const before = status.state();
    status.setState('loading');
    let info: ModelInfo;
    try {
      info = await this.deps.request({ op: 'load', path: spec.path, options: spec.options }, { internal: spec.internal });
    } catch (error) {
      const code = (error as CodedError).code;
      if (rule.crashIsTheCrashPaths && code === 'ENGINE_CRASHED') throw error;
      status.setLastError({ code: code ?? 'INTERNAL', message: (error as Error).message });
      if (rule.logsFailure) log.error(rule.logsFailure, error);
      if (rule.freshEngine) this.forget();
      // The engine keeps the previous model when a load fails (none resident after an idle unload). A reload
      // after an idle unload that a crash interrupted leaves the state to the crash path.
      else if (spec.reason !== 'idle' || status.state() === 'loading') status.setState(this.settledState(before));
      throw error;
    }
    this.model = info;
    this.generation += 1;
    this.path = spec.path;
    this.options = spec.options;
    this.idleUnloaded = false;
    if (spec.reason === 'user') {
      this.modelId = spec.modelId ?? null;
      status.setLastError(null);
    }
    const verb = spec.reason === 'user' ? 'loaded' : 'reloaded';
    log.info(`model ${verb}: ${info.name || spec.path} on ${info.device.device.name} in ${info.loadMs.toFixed(0)} ms${rule.after}`);
    return info;
  }

  /** The engine dropped the model (an explicit unload). */
  forget(): void {
    this.model = null;
    this.modelId = null;
    this.path = null;
    this.idleUnloaded = false;
  }

  /** The state after a failed load, when the engine kept what it had. */
  private settledState(before: EngineState): EngineState {
    if (this.idleUnloaded) return 'idle-unloaded';
    if (this.model) return 'ready';
    return before === 'missing' ? 'missing' : 'no-model';
  }
}
