// Entry of the engine process: the native addon lives here, away from the
// window and the recording. Main starts it with child_process.fork (Node,
// `serialization: 'advanced'`) or Electron's utilityProcess.fork; both
// deliver structured-cloned messages, only the port differs.
import { EngineCore } from './engine-core.js';
import { watchParent } from './parent-watch.js';
import { TEST_HOOKS_ENV, type EngineToHost, type HostToEngine } from './protocol.js';

/** Electron's utilityProcess port (typed here so this file needs no Electron import). */
interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

const parentPort = (process as { parentPort?: ParentPort }).parentPort;

function post(message: EngineToHost): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send?.(message);
}

const core = new EngineCore(post, {
  testHooks: process.env[TEST_HOOKS_ENV] === '1',
  // SIGKILL: a hard death like a driver fault, without a core dump.
  kill: () => process.kill(process.pid, 'SIGKILL'),
});

if (parentPort) {
  parentPort.on('message', (event) => core.handle(event.data as HostToEngine));
} else if (process.send) {
  process.on('message', (message) => core.handle(message as HostToEngine));
  // Main is gone: nobody can use our results.
  process.on('disconnect', () => exitQuietly());
} else {
  process.stderr.write('engine-process: no parent to talk to (start it through EngineHost)\n');
  process.exit(2);
}

function exitQuietly(): void {
  core.dispose();
  process.exit(0);
}

process.on('SIGTERM', exitQuietly);
// Main SIGKILLed (or crashed) without closing our channel: nobody can use our results (parent-watch.ts).
watchParent(exitQuietly);

core.start();
