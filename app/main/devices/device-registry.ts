// The device view's truth: what the engine can see (listDevices), what the
// user chose (settings.device), what the loaded model really runs on (its
// DeviceSelection, after fallbacks), which devices ran the last decode (from
// the engine, not from the settings), which devices failed in this run, and
// the last known-answer self-test of each device.
import type {
  DeviceFailure, DevicePrepared, DevicePreparing, DeviceSelfTest, DeviceSkipped, DevicesState,
} from '../../ipc/contract.js';
import type { DeviceInfo, DeviceType } from '../../../native/index.js';
import { CodedError } from '../../../types/errors.js';
import type { EngineHost } from '../engine/engine-host.js';
import { engineNotices } from '../engine/engine-notices.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import type { SettingsStore } from '../settings.js';
import { systemMemory, type SystemMemory } from '../util/memory.js';

/** CPU devices get the OS's figures: total and available memory (Linux: MemAvailable). */
export function withSystemMemory(devices: DeviceInfo[], read: () => SystemMemory): DeviceInfo[] {
  if (!devices.some((d) => d.type === 'cpu')) return devices;
  const memory = read();
  return devices.map((d) => (d.type === 'cpu' ? { ...d, memoryTotal: memory.totalBytes, memoryFree: memory.availableBytes } : d));
}

export interface DeviceRegistryOptions {
  /** The OS's memory figures for the CPU row (tests pass a fixed one). */
  systemMemory?: () => SystemMemory;
  engine: EngineHost;
  settings: SettingsStore;
  bus: EventBus;
  log: Logger;
  /** Reloads the resident model with the current settings (a device switch); joins a reload to the same options in flight. */
  reloadModel: () => Promise<void>;
  /**
   * $PARAKEET_DEVICE as the engine reads it (services: this process's, which the engine inherits): the device
   * the engine loads on while the setting is Auto, a device the user named. Absent: none.
   */
  environmentDevice?: () => string | undefined;
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
/** "auto" in any spelling (the engine compares names case-insensitively); settings:set accepts any name. */
const isAuto = (name: string): boolean => same(name, 'auto');

/**
 * Why Auto passes over a device its self-test measured slower than its CPU twin (same model, same threads,
 * same signal); null when it did not (the CPU itself, a failed test, no speed, or at least as fast).
 */
export function slowerThanCpu(test: DeviceSelfTest): string | null {
  if (test.reference !== 'cpu' || !test.passed || !test.speed) return null;
  const { audioMs, deviceMs, referenceMs } = test.speed;
  if (deviceMs <= referenceMs) return null;
  return `measured slower than the CPU by its self-test: ${audioMs / 1000} s of audio in ${Math.round(deviceMs)} ms, ` +
    `${Math.round(referenceMs)} ms on the CPU`;
}

/**
 * The engine's automatic order (devices.cpp, select_device): a discrete GPU, then an integrated one. An
 * accelerator (BLAS, …) works alongside the CPU and is never a device of its own: the engine refuses one.
 */
const AUTO_ORDER: readonly DeviceType[] = ['gpu', 'igpu'];

export class DeviceRegistry {
  private devices: DeviceInfo[] = [];
  private lastRan: string[] = [];
  private readonly failed: DeviceFailure[] = [];
  /** The last self-test per device, keyed by lower-case name, in the order devices were first tested. */
  private readonly selfTests = new Map<string, DeviceSelfTest>();
  /** Devices that had too little free memory for a model's weights, keyed by lower-case name and model path. */
  private readonly noRoom = new Map<string, DeviceSkipped>();
  private lastSent = '';
  /** A GPU's first use in the engine process (pipeline compilation), while it runs. */
  private preparing: DevicePreparing | null = null;
  /** First uses that finished in the current engine process, keyed by lower-case name. */
  private readonly prepared = new Map<string, DevicePrepared>();

  constructor(private readonly opts: DeviceRegistryOptions) {
    opts.engine.on('crashed', ({ device, reason }) => {
      // A new engine process compiles again (Mesa's disk cache may make it quick).
      this.preparing = null;
      this.prepared.clear();
      if (device) this.markFailed(device, `the engine process stopped (${reason}) while running on it`);
      this.announce();
    });
    opts.engine.on('preparing', ({ device, done, ms }) => {
      if (!done) {
        this.preparing = { device, since: new Date().toISOString() };
      } else {
        if (this.preparing && same(this.preparing.device, device)) this.preparing = null;
        if (ms !== undefined) this.prepared.set(device.toLowerCase(), { device, ms });
      }
      this.announce();
    });
    opts.engine.on('deviceFailed', ({ device, reason }) => this.markFailed(device, reason));
    // Synchronous with the engine host's report: a failed device is excluded before the host asks
    // effectiveDevice() where to reload.
    opts.engine.on('selfTest', (result) => {
      this.selfTests.set(result.device.toLowerCase(), { ...result });
      if (!result.passed) this.markFailed(result.device, `self-test: ${result.detail}`);
      this.announce();
    });
    opts.engine.on('ran', ({ devicesRan }) => {
      if (devicesRan.join('\n') === this.lastRan.join('\n')) return;
      this.lastRan = [...devicesRan];
      this.announce();
    });
    // A load or reload changes the active device.
    opts.engine.on('status', () => {
      this.noteStartFailure();
      this.announce();
    });
    opts.settings.on('changed', ({ next, previous }) => {
      if (next.device !== previous.device) this.announce();
    });
  }

  /** Asks the engine for its devices (memory figures are fresh each time). */
  async refresh(): Promise<DevicesState> {
    if (this.opts.engine.engineAvailable) {
      try {
        // The CPU's memory as the OS counts it (ggml reports the physical total as free too).
        this.devices = withSystemMemory(await this.opts.engine.listDevices(), this.opts.systemMemory ?? systemMemory);
      } catch (error) {
        this.opts.log.warn('could not list devices', error);
      }
    }
    this.announce();
    return this.state();
  }

  state(): DevicesState {
    return {
      devices: this.devices.map((d) => ({ ...d, cpuFeatures: [...d.cpuFeatures], ...(d.gpu ? { gpu: { ...d.gpu } } : {}) })),
      selected: this.opts.settings.get().device,
      active: this.opts.engine.loadedModel?.device ?? null,
      lastRan: [...this.lastRan],
      failed: this.failed.map((f) => ({ ...f })),
      selfTests: [...this.selfTests.values()].map((t) => ({ ...t, ...(t.speed ? { speed: { ...t.speed } } : {}) })),
      preparing: this.preparing ? { ...this.preparing } : null,
      prepared: [...this.prepared.values()].map((p) => ({ ...p })),
      autoSkipped: this.slowerDevices(),
      backendsNotLoaded: [...(this.opts.engine.buildInfo?.backendsNotLoaded ?? [])],
    };
  }

  /**
   * Working devices whose last self-test measured them slower than the CPU with the model loaded now (a verdict
   * from another model is that model's: a bigger one may run faster on the GPU, and the CPU it moved to is never
   * tested again on its own, so an old verdict would keep the GPU out for good).
   */
  private slowerDevices(path = this.opts.engine.loadedModel?.path): DeviceSkipped[] {
    const out: DeviceSkipped[] = [];
    for (const test of this.selfTests.values()) {
      if (test.model !== undefined && path !== undefined && test.model !== path) continue;
      const reason = slowerThanCpu(test);
      if (reason) out.push({ name: test.device, reason });
    }
    // A device without room for this model's weights: it works, and another model may fit.
    for (const [key, skipped] of this.noRoom) if (path !== undefined && key.endsWith(`\n${path}`)) out.push({ ...skipped });
    return out;
  }

  /**
   * The device the user named and where: the setting unless it is Auto, else $PARAKEET_DEVICE (which the
   * engine reads when it is given no device); null when Auto decides.
   */
  private named(): { name: string; from: 'settings' | 'environment' } | null {
    const selected = this.opts.settings.get().device;
    if (!isAuto(selected)) return { name: selected, from: 'settings' };
    const env = this.opts.environmentDevice?.()?.trim();
    return env && !isAuto(env) ? { name: env, from: 'environment' } : null;
  }

  /** Auto passes over `name`: it measured slower than the CPU, and the user did not name it (setting or environment). */
  autoSkips(name: string): boolean {
    const named = this.named();
    if (named && same(named.name, name)) return false;
    return this.slowerDevices().some((d) => same(d.name, name));
  }

  /**
   * The device the engine loads on when it is given no device (effectiveDevice() undefined): the one named
   * in the environment, else the first GPU, then integrated GPU, that is not a software renderer, else the
   * CPU (devices.cpp, select_device). Null before the engine listed its devices.
   */
  autoChoice(): string | null {
    if (this.devices.length === 0) return null;
    const named = this.named();
    if (named?.from === 'environment') return this.devices.find((d) => same(d.name, named.name))?.name ?? 'CPU';
    for (const type of AUTO_ORDER) {
      const candidate = this.devices.find((d) => d.type === type && !d.softwareRenderer);
      if (candidate) return candidate.name;
    }
    return 'CPU';
  }

  /**
   * The loaded model fell back to the CPU because its device could not start (a driver without the device:
   * ComputeBackend's fallback): that device is marked failed like one that failed a decode, so the next load
   * goes to the next device instead of trying it again. A device with too little free memory for the weights
   * (`noRoom`) works: it is passed over for that model only. A fallback from a name that is no device here, or
   * from an accelerator, is no device failure.
   */
  private noteStartFailure(): void {
    const model = this.opts.engine.loadedModel;
    const selection = model?.device;
    if (!model || !selection?.fellBack || selection.device.type !== 'cpu') return;
    const wanted = selection.requested || this.autoChoice();
    const device = wanted ? this.devices.find((d) => same(d.name, wanted)) : undefined;
    if (!device || device.type === 'cpu' || device.type === 'accel' || this.isFailed(device.name)) return;
    if (selection.noRoom) {
      // Not a broken device: too little free memory for this model. Auto passes over it for this model only.
      const key = `${device.name.toLowerCase()}\n${model.path}`;
      if (this.noRoom.has(key)) return;
      this.noRoom.set(key, { name: device.name, reason: `too little free memory for this model's weights (${model.name || model.path})` });
      this.opts.log.warn(`${device.name}: ${selection.reason}`);
      this.opts.bus.emit('notice', engineNotices.deviceNoRoom(device.name));
      this.announce();
      return;
    }
    this.markFailed(device.name, `it could not start (${selection.reason})`);
    // Said once, when it happens: the model is on the CPU now, which the user did not choose (or Auto did not expect).
    this.opts.bus.emit('notice', engineNotices.deviceCouldNotStart(device.name, selection.reason));
  }

  private isCpu(name: string): boolean {
    return same(name, 'CPU') || this.devices.find((d) => same(d.name, name))?.type === 'cpu';
  }

  isFailed(name: string): boolean {
    return this.failed.some((f) => same(f.name, name));
  }

  markFailed(name: string, reason: string): void {
    if (this.isFailed(name)) return;
    this.failed.push({ name, reason, at: new Date().toISOString() });
    this.opts.log.warn(`device ${name} marked failed for this run: ${reason}`);
    this.announce();
  }

  /**
   * The device to load on: the user's choice unless it is a GPU that failed in this run; otherwise (or for 'auto' once
   * something failed or measured slower than the CPU) the engine's automatic order without those devices,
   * ending at the CPU, which stays the last resort even if it failed too. undefined = let the engine choose
   * (nothing failed or was skipped). `forPath`: the model about to be loaded (the verdicts that hold per model
   * are that model's; default the loaded one).
   */
  effectiveDevice(forPath?: string): string | undefined {
    const named = this.named();
    // A named CPU stays the choice even when it failed (the engine died during a CPU decode, its self-test):
    // it is the last resort anyway, and moving a user who chose the CPU onto a GPU they avoided is no recovery.
    const keep = named && (!this.isFailed(named.name) || this.isCpu(named.name));
    // A device named in the environment: the engine reads it itself (and says so in its reason).
    if (named && keep) return named.from === 'settings' ? named.name : undefined;
    const slower = this.slowerDevices(forPath ?? this.opts.engine.loadedModel?.path);
    if (this.failed.length === 0 && slower.length === 0) return undefined;
    const passedOver = (name: string): boolean => this.isFailed(name) || slower.some((d) => same(d.name, name));
    for (const type of AUTO_ORDER) {
      const candidate = this.devices.find((d) => d.type === type && !d.softwareRenderer && !passedOver(d.name));
      if (candidate) return candidate.name;
    }
    return 'CPU';
  }

  /** The user picks a device ('auto' or a name): validated, saved, and the model is reloaded on it. */
  async select(name: string): Promise<DevicesState> {
    if (!same(name, 'auto')) {
      const device = await this.usableDevice(name, 'try it again');
      name = device.name;
    } else {
      name = 'auto';
    }
    if (this.opts.settings.get().device !== name) await this.opts.settings.set({ device: name });
    // The settings change already started the reload; this joins it (or reloads when the choice did not
    // change, e.g. back to a device after a fallback), so the state returned is the one after the load.
    if (this.opts.engine.loadedModel) await this.opts.reloadModel();
    this.announce();
    return this.state();
  }

  /**
   * The named device, refused when this machine has none by that name or when it is a GPU that already
   * failed in this run (it may crash the engine again); the CPU stays usable as the last resort.
   */
  private async usableDevice(name: string, retryHint: string): Promise<DeviceInfo> {
    if (this.devices.length === 0) await this.refresh();
    const device = this.devices.find((d) => same(d.name, name));
    if (!device) {
      throw new CodedError(
        'DEVICE_UNAVAILABLE',
        `There is no device named "${name}" on this machine; available: ${this.devices.map((d) => d.name).join(', ') || 'none'}.`,
      );
    }
    const failure = this.failed.find((f) => same(f.name, device.name));
    if (failure && device.type !== 'cpu') {
      throw new CodedError('DEVICE_UNAVAILABLE', `${device.name} failed earlier in this run (${failure.reason}); restart the app to ${retryHint}.`);
    }
    return device;
  }

  /**
   * The known-answer self-test of a device (absent: the one in use) with the loaded model. A GPU that
   * already failed in this run is not touched again (it may crash the engine); the CPU can always be tested.
   */
  async selfTest(name?: string): Promise<DeviceSelfTest> {
    const active = this.opts.engine.loadedModel?.device.device.name;
    if (!active) throw new CodedError('NO_MODEL', 'No model is loaded; load one first: the self-test runs the loaded model.');
    const device = await this.usableDevice(name ?? active, 'test it again');
    return this.opts.engine.selfTest(device.name);
  }

  /** Emits devices:changed when something the device view shows changed. */
  private announce(): void {
    const state = this.state();
    const key = JSON.stringify([
      state.devices.map((d) => [d.name, d.memoryFree]), state.selected, state.active, state.lastRan, state.failed, state.selfTests,
      state.preparing, state.prepared,
    ]);
    if (key === this.lastSent) return;
    this.lastSent = key;
    this.opts.bus.emit('devices:changed', state);
  }
}
