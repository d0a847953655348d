// Entry of the key-hook process: uiohook-napi (libuiohook: XRecord on X11, a
// CGEventTap on macOS, a low-level keyboard hook on Windows) reports every key
// press and release in the session. It runs in its own process because
// libuiohook aborts the whole process when it cannot open the display
// ("XOpenDisplay failure"), and because its hook thread must never stall the
// main process's event loop. Main starts it with child_process.fork or
// Electron's utilityProcess.fork; only the port differs (as the engine's).
import { createRequire } from 'node:module';
import { EventClock } from './event-clock.js';
import { keycodeTable } from './key-names.js';
import { OTHER_KEY, WATCH_ENV, type KeyHookMessage } from './key-hook-protocol.js';

interface ParentPort {
  postMessage(message: unknown): void;
}

interface KeyboardEvent {
  keycode: number;
  /** The OS's time of the event (ms, its own origin). */
  time: number;
}

interface UiohookModule {
  uIOhook: {
    on(event: 'keydown' | 'keyup', listener: (e: KeyboardEvent) => void): void;
    start(): void;
    stop(): void;
  };
  UiohookKey: Record<string, number>;
}

const parentPort = (process as { parentPort?: ParentPort }).parentPort;

function post(message: KeyHookMessage): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send?.(message);
}

function run(): void {
  let hook: UiohookModule;
  try {
    // CommonJS package with a native addon (node-gyp-build picks the prebuilt binary for this OS and CPU).
    hook = createRequire(import.meta.url)('uiohook-napi') as UiohookModule;
  } catch (error) {
    post({ type: 'failed', message: `the key hook (uiohook-napi) could not be loaded: ${(error as Error).message}` });
    process.exit(3);
  }
  const table = keycodeTable(hook.UiohookKey);
  const watched = new Set((process.env[WATCH_ENV] ?? 'Escape').split(',').filter(Boolean));
  const clock = new EventClock();
  const forward = (down: boolean) => (e: KeyboardEvent) => {
    const code = table.get(e.keycode);
    const at = clock.epochOf(e.time, Date.now());
    if (code && watched.has(code)) post({ type: 'key', down, code, at });
    // Watching only Esc (toggle mode): other keys are of no use to main at all.
    else if (watched.size > 1) post({ type: 'key', down, code: OTHER_KEY, at });
  };
  hook.uIOhook.on('keydown', forward(true));
  hook.uIOhook.on('keyup', forward(false));
  try {
    hook.uIOhook.start();
  } catch (error) {
    post({ type: 'failed', message: `the key hook could not start: ${(error as Error).message}` });
    process.exit(3);
  }
  post({ type: 'ready' });
  const stop = (): void => {
    try {
      hook.uIOhook.stop();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', stop);
  // Main is gone (fork): nobody needs the keys.
  process.on('disconnect', stop);
}

run();
