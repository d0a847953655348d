// Electron adapter: the engine process as an Electron utilityProcess (a
// Chromium-managed Node process: crash reporting, sandbox-friendly, killed
// with the app). Only the type of `electron` is imported; the caller passes
// the real `utilityProcess` in.
import type { UtilityProcess } from 'electron';
import { isEngineToHost, TEST_HOOKS_ENV } from '../../engine-process/protocol.js';
import { engineEntry, type TransportFactory } from '../engine/transport.js';

export interface UtilityProcessModule {
  fork(modulePath: string, args?: string[], options?: Electron.ForkOptions): UtilityProcess;
}

export function utilityTransport(utilityProcess: UtilityProcessModule): TransportFactory {
  return (handlers, options) => {
    const entry = engineEntry();
    const env: Record<string, string> = {};
    // The test triggers stay off in the app (tests reach them through a forked engine only).
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== TEST_HOOKS_ENV) env[k] = v;
    const child = utilityProcess.fork(entry.path, [], { serviceName: 'Parakeet engine', stdio: 'pipe', env });
    child.stdout?.on('data', (chunk: Buffer) => options.log.info(chunk.toString('utf8').trimEnd()));
    child.stderr?.on('data', (chunk: Buffer) => options.log.warn(chunk.toString('utf8').trimEnd()));
    child.on('message', (message: unknown) => {
      if (isEngineToHost(message)) handlers.message(message);
    });
    child.on('exit', (code: number) => handlers.exit({ code, signal: null }));
    // A fatal V8 error in the engine (e.g. out of memory) arrives as 'error' before 'exit'; without a
    // listener the EventEmitter would throw it in main. The 'exit' that follows drives the restart.
    child.on('error', (type: string, location: string) => options.log.error(`engine process fatal error: ${type} at ${location}`));
    return {
      kind: 'process',
      get pid() {
        return child.pid ?? null;
      },
      send(message) {
        child.postMessage(message);
      },
      kill() {
        child.kill();
      },
    };
  };
}
