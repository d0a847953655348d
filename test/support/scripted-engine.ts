// A scripted engine for EngineHost's unit tests: a TransportFactory whose engine is ready at once and answers
// each request as the test's script says, posting its messages on a later turn as a real engine's arrive.
import type { EngineToHost, HostToEngine } from '../../app/engine-process/protocol.js';
import type { TransportFactory, TransportHandlers } from '../../app/main/engine/transport.js';

export interface ScriptedEngine {
  /** To the host, on the next turn. */
  post: (m: EngineToHost) => void;
  /** The host's handlers (`exit` ends this engine as a crash would). */
  handlers: TransportHandlers;
}

/**
 * `start` runs once per engine the host starts (a restart starts another: state made in it is that engine's)
 * and returns how the engine answers each request.
 */
export function scriptedTransport(start: (engine: ScriptedEngine) => (m: HostToEngine) => void): TransportFactory {
  return (handlers) => {
    const engine: ScriptedEngine = {
      handlers,
      post: (m) => {
        setImmediate(() => handlers.message(m));
      },
    };
    const send = start(engine);
    engine.post({ t: 'ready', available: true, error: null, build: null, pid: 1 });
    return { pid: 1, kind: 'inline', kill: () => undefined, send };
  };
}

/** A decode's result as the engine sends it (one window of 1 s on `device`). */
export function scriptedTranscript(text: string, device = 'CPU'): object {
  return {
    text, words: [], tokens: [], durationSec: 1, decoder: 'tdt', device, devicesRan: [device],
    timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, windows: [{ start: 0, end: 1 }],
  };
}
