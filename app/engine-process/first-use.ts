// A GPU's first decode in this process, made visible ("Preparing the GPU, once"). ggml's GPU backends
// compile their compute pipelines when a graph first needs them: seconds on a real GPU, minutes on a
// software renderer (lavapipe compiles each SPIR-V shader with LLVM), while the request looks stuck.
// The engine cannot see the compilation itself (ggml-vulkan does it inside graph_compute), so the
// first request that decodes on a device that is not the CPU is the preparation: the host hears when it
// starts and how long it took, and later decodes on that device are not announced again.
import type { EngineToHost } from './protocol.js';

export interface FirstUseDevice {
  name: string;
  type: 'cpu' | 'gpu' | 'igpu' | 'accel';
}

export class FirstUse {
  /** Devices (lower-case names) with a decode that finished in this process. */
  private readonly ready = new Set<string>();
  /** Decodes running on a device still being prepared, by device: the first one announces, the last one ends it. */
  private readonly inFlight = new Map<string, { count: number; started: number }>();

  constructor(private readonly post: (message: Extract<EngineToHost, { t: 'preparing' }>) => void, private readonly now: () => number = () => performance.now()) {}

  /** Whether a decode on `device` has finished in this process (the CPU needs no preparation). */
  isReady(device: FirstUseDevice): boolean {
    return device.type === 'cpu' || this.ready.has(device.name.toLowerCase());
  }

  /** Runs a decode on `device`, announcing it when it is the device's first (a failed one does not count as done). */
  async around<T>(device: FirstUseDevice | null, work: () => Promise<T>): Promise<T> {
    if (!device || this.isReady(device)) return work();
    const key = device.name.toLowerCase();
    const running = this.inFlight.get(key);
    if (running) {
      running.count += 1;
    } else {
      this.inFlight.set(key, { count: 1, started: this.now() });
      this.post({ t: 'preparing', device: device.name, done: false });
    }
    let succeeded = false;
    try {
      const result = await work();
      succeeded = true;
      return result;
    } finally {
      this.settle(device.name, succeeded);
    }
  }

  private settle(name: string, succeeded: boolean): void {
    const key = name.toLowerCase();
    const running = this.inFlight.get(key);
    if (!running) return;
    if (succeeded && !this.ready.has(key)) {
      this.ready.add(key);
      this.post({ t: 'preparing', device: name, done: true, ms: Math.round(this.now() - running.started) });
    }
    running.count -= 1;
    if (running.count > 0) return;
    this.inFlight.delete(key);
    // Every decode of the first batch failed: the preparation ended without a result (the device is
    // marked failed elsewhere); the next decode announces it again.
    if (!this.ready.has(key)) this.post({ t: 'preparing', device: name, done: true });
  }
}
