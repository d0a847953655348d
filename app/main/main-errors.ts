// What main does with an error nothing caught. Electron's own handler
// (lib/browser/init.ts, v40.8.5) shows a modal "A JavaScript error occurred in
// the main process" box unless the app has an 'uncaughtException' listener of
// its own; a rejected promise nobody awaited becomes one under Node's default
// --unhandled-rejections=throw. Here both are logged with their stack and told
// to the user as one notice per distinct message (the window shows notices),
// and the app keeps running. Electron-free: the process and the notice sink
// are parameters, so the test drives it with an EventEmitter.
import type { Notice } from '../ipc/contract.js';
import type { Logger } from './log.js';

export interface ErrorEvents {
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  off(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  off(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}

export interface MainErrorSinks {
  log: Pick<Logger, 'error'>;
  /** The window's notices (the bus), or nowhere yet before the services exist. */
  notify: (notice: Notice) => void;
}

function describe(reason: unknown): string {
  return reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
}

/** Installs the listeners; returns their removal. */
export function handleMainProcessErrors(events: ErrorEvents, sinks: MainErrorSinks): () => void {
  const told = new Set<string>();
  const report = (kind: string, reason: unknown): void => {
    sinks.log.error(`${kind} in the main process`, reason);
    const what = describe(reason);
    if (told.has(what)) return;
    told.add(what);
    try {
      sinks.notify({
        level: 'error',
        code: 'INTERNAL',
        message: `Something went wrong inside Parakeet (${what}). The app keeps running.`,
        action: 'If something stopped working, restart the app; Settings › About this installation › Copy diagnostics gives the log for a bug report.',
      });
    } catch (error) {
      // A throw from here would be another uncaught exception, raised inside this very handler.
      sinks.log.error('could not show the error notice', error);
    }
  };
  const onException = (error: Error): void => report('uncaught exception', error);
  const onRejection = (reason: unknown): void => report('unhandled rejection', reason);
  events.on('uncaughtException', onException);
  events.on('unhandledRejection', onRejection);
  return () => {
    events.off('uncaughtException', onException);
    events.off('unhandledRejection', onRejection);
  };
}
