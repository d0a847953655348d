// Electron adapter: the key-hook process as an Electron utilityProcess (a
// Node process Chromium manages and ends with the app). Only the type of
// `electron` is imported; the caller passes the real `utilityProcess` in.
import type { UtilityProcessModule } from '../electron/utility-transport.js';
import type { KeyHookSpawner } from './key-hook.js';

export function utilityKeyHook(utilityProcess: UtilityProcessModule): KeyHookSpawner {
  return (entry, env, onMessage, onExit) => {
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
    const child = utilityProcess.fork(entry, [], { serviceName: 'Parakeet key hook', stdio: 'pipe', env: childEnv });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.on('message', onMessage);
    child.on('exit', (code: number) => onExit(code, stderr.trim().split('\n').pop() || null));
    child.on('error', () => undefined); // the 'exit' that follows reports it
    return { kill: () => child.kill(), lastError: () => stderr.trim().split('\n').pop() || null };
  };
}
