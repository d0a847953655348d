// Drives an EngineCore (the engine process's request handler) in this process,
// as the host would over the wire, with a model loader that counts its calls
// (the real Model.load underneath).
import { Model, type LoadOptions } from '../../native/index.js';
import { EngineCore } from '../../app/engine-process/engine-core.js';
import type { EngineRequest, EngineResponseMap, EngineToHost } from '../../app/engine-process/protocol.js';

export class EngineCoreClient {
  /** Model.load calls so far, with the path and device each asked for. */
  readonly loads: { path: string; device?: string }[] = [];
  private readonly core: EngineCore;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  constructor() {
    this.core = new EngineCore((message) => this.receive(message), {
      testHooks: false,
      loadModel: (path: string, options: LoadOptions) => {
        this.loads.push({ path, device: options.device });
        return Model.load(path, options);
      },
    });
    this.core.start();
  }

  request<Op extends EngineRequest['op']>(request: Extract<EngineRequest, { op: Op }>): Promise<EngineResponseMap[Op]> {
    const id = this.nextId++;
    return new Promise<EngineResponseMap[Op]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.core.handle({ ...request, id });
    });
  }

  dispose(): void {
    this.core.dispose();
  }

  private receive(message: EngineToHost): void {
    if (message.t !== 'result') return;
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
  }
}
