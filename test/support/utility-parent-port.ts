// Preload (node --import) that gives a process what Electron's utilityProcess gives its child:
// `process.parentPort`, a message port that keeps the process alive and says nothing when the parent
// is SIGKILLed. Used to check that the engine entry notices its parent's death on its own.
interface PortLike {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

const port: PortLike = { on: () => undefined, postMessage: () => undefined };
(process as { parentPort?: PortLike }).parentPort = port;
// An open port holds the event loop, as Electron's does.
setInterval(() => undefined, 1 << 30);
