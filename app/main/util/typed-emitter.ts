// A typed event emitter whose on() returns an unsubscribe function (the
// pattern the preload API uses), so adapters cannot leak listeners.
import { EventEmitter } from 'node:events';

export class TypedEmitter<Events extends { [K in keyof Events]: unknown[] }> {
  private readonly ee = new EventEmitter();

  constructor() {
    // Many windows/IPC bindings may listen; this is not a leak.
    this.ee.setMaxListeners(100);
  }

  on<K extends keyof Events & string>(event: K, listener: (...args: Events[K]) => void): () => void {
    const l = listener as (...args: unknown[]) => void;
    this.ee.on(event, l);
    return () => {
      this.ee.off(event, l);
    };
  }

  once<K extends keyof Events & string>(event: K, listener: (...args: Events[K]) => void): () => void {
    const l = listener as (...args: unknown[]) => void;
    this.ee.once(event, l);
    return () => {
      this.ee.off(event, l);
    };
  }

  protected emit<K extends keyof Events & string>(event: K, ...args: Events[K]): void {
    // A throwing listener must not break a download in progress.
    for (const l of this.ee.listeners(event)) {
      try {
        (l as (...a: Events[K]) => void)(...args);
      } catch (e) {
        console.error(`[models] a '${event}' listener threw:`, e);
      }
    }
  }
}
