// The event bus of the main-process services: every event the renderer can
// receive (contract EventMap) goes through here once, and each adapter
// (Electron webContents, web-bridge sockets) forwards it with onAny().
import type { EventMap, EventName } from '../ipc/contract.js';
import type { Logger } from './log.js';

type Listener<E extends EventName> = (data: EventMap[E]) => void;
type AnyListener = <E extends EventName>(event: E, data: EventMap[E]) => void;

export class EventBus {
  private readonly listeners = new Map<EventName, Set<(data: never) => void>>();
  private readonly anyListeners = new Set<AnyListener>();

  constructor(private readonly log?: Logger) {}

  on<E extends EventName>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as (data: never) => void);
    return () => {
      set.delete(listener as (data: never) => void);
    };
  }

  /** Every event, in emission order (what the adapters forward). */
  onAny(listener: AnyListener): () => void {
    this.anyListeners.add(listener);
    return () => {
      this.anyListeners.delete(listener);
    };
  }

  emit<E extends EventName>(event: E, data: EventMap[E]): void {
    // A throwing listener (a closed window, a broken socket) must not stop the others.
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as Listener<E>)(data);
      } catch (error) {
        this.log?.error(`a '${event}' listener threw`, error);
      }
    }
    for (const listener of this.anyListeners) {
      try {
        listener(event, data);
      } catch (error) {
        this.log?.error(`an event forwarder threw on '${event}'`, error);
      }
    }
  }
}
