// The engine's test triggers (a crash on demand, a corrupted self-test), kept
// out of the app's types: a transport wrapper turns them on in the engine
// process (TEST_HOOKS_ENV) and sends them beside the host's own requests, with
// ids of its own, and takes their answers before the host sees them.
//
//   const { transport, triggers } = withEngineTriggers();
//   const host = new EngineHost({ mode: 'process', transport, … });  // or createServices({ engineTransport: transport })
//   await triggers.crash('nextTranscribe');
import { TEST_HOOKS_ENV, type CrashWhen, type SelfTestCorruption, type TestTriggerRequest } from '../../app/engine-process/protocol.js';
import { CodedError } from '../../types/errors.js';
import { createForkTransport, type EngineTransport, type TransportFactory } from '../../app/main/engine/transport.js';

export interface EngineTriggers {
  /** Kill the engine now, right after the next transcription starts, or right after the next validation starts. */
  crash(when: CrashWhen): Promise<null>;
  /** The next self-test's device output is corrupted before the comparison. */
  corruptNextSelfTest(how: SelfTestCorruption): Promise<null>;
}

/** Far above the host's own ids (it counts from 1), so the two never meet. */
const FIRST_TRIGGER_ID = 2 ** 40;

export function withEngineTriggers(
  inner: TransportFactory = createForkTransport({ [TEST_HOOKS_ENV]: '1' }),
): { transport: TransportFactory; triggers: EngineTriggers } {
  let current: EngineTransport | null = null;
  let nextId = FIRST_TRIGGER_ID;
  const waiting = new Map<number, { resolve: (value: null) => void; reject: (error: Error) => void }>();

  const transport: TransportFactory = (handlers, options) => {
    const created = inner({
      message: (message) => {
        if (message.t === 'result' && waiting.has(message.id)) {
          const w = waiting.get(message.id)!;
          waiting.delete(message.id);
          if (message.ok) w.resolve(null);
          else w.reject(CodedError.from(message.error));
          return;
        }
        handlers.message(message);
      },
      exit: (info) => {
        if (current === created) current = null;
        // A crash trigger's answer never comes when it killed the engine: the death is its answer.
        for (const w of waiting.values()) w.resolve(null);
        waiting.clear();
        handlers.exit(info);
      },
    }, options);
    current = created;
    return created;
  };

  const send = (request: TestTriggerRequest): Promise<null> => {
    if (!current) return Promise.reject(new Error('no engine is running to trigger'));
    const id = nextId++;
    const sent = new Promise<null>((resolve, reject) => waiting.set(id, { resolve, reject }));
    current.send({ ...request, id });
    return sent;
  };

  return {
    transport,
    triggers: {
      crash: (when) => send({ op: 'crash', when }),
      corruptNextSelfTest: (how) => send({ op: 'corruptSelfTest', how }),
    },
  };
}
