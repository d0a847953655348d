// The engine core in this process (the host's `inline` setting): the same protocol as the engine process,
// no isolation. Typed by the protocol alone, so it satisfies the host's TransportFactory
// (app/main/engine/transport.ts) without this side importing the host.
import { EngineCore } from './engine-core.js';
import type { EngineToHost, HostToEngine } from './protocol.js';

export interface InlineEngine {
  readonly kind: 'inline';
  readonly pid: null;
  send(message: HostToEngine): void;
  kill(): void;
}

export function inlineTransport(handlers: { message(message: EngineToHost): void }): InlineEngine {
  let alive = true;
  // Deliver asynchronously, as a real process would, so callers never see re-entrant answers.
  const core = new EngineCore((message) => setImmediate(() => alive && handlers.message(message)), { testHooks: false });
  setImmediate(() => core.start());
  return {
    kind: 'inline',
    pid: null,
    send(message) {
      setImmediate(() => alive && core.handle(message));
    },
    kill() {
      alive = false;
      core.dispose();
    },
  };
}
