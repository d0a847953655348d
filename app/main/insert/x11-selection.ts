// Knowing when the target has read the clipboard (X11). The paste path takes
// the CLIPBOARD selection with `xclip -in -verbose`, which stays in the
// foreground as the selection's owner and prints "Waiting for selection
// request number N+1" each time it has served a data request (the TARGETS
// query an application makes first is not counted). A request that arrives
// after the paste keystroke is the target reading the text, so the previous
// clipboard can be put back only then — not after a guessed delay.
//
// What this cannot tell: which client asked. A clipboard manager that copies
// each new selection at the same moment would look like the target; it
// usually asks as soon as ownership changes, before the keystroke, which is
// why only requests counted after the keystroke are taken.
import { spawn } from 'node:child_process';
import { InsertError, missingToolError } from './errors.js';

export interface SelectionWitness {
  /** Data requests served so far. */
  readonly served: number;
  /** True once more than `count` requests were served; false after `ms`, or when ownership is lost first. */
  servedAfter(count: number, ms: number): Promise<boolean>;
  /** Stop serving (only when nothing else is put on the clipboard: ownership goes with it). */
  close(): void;
}

const READY = /Waiting for selection requests/;
const SERVED = /Waiting for selection request number (\d+)/g;

/** Owns the CLIPBOARD with `text` until something else is copied; resolves once xclip owns it. */
export function ownClipboardWatched(text: string, env: NodeJS.ProcessEnv, timeoutMs = 3000): Promise<SelectionWitness> {
  return ownSelectionWatched('clipboard', text, env, timeoutMs);
}

/**
 * Owns `selection` with `text` (PRIMARY: what an xterm pastes on Shift+Insert) until something else takes
 * it, or until close(); resolves once xclip owns it.
 */
export function ownSelectionWatched(selection: 'clipboard' | 'primary', text: string, env: NodeJS.ProcessEnv, timeoutMs = 3000): Promise<SelectionWitness> {
  const what = selection === 'clipboard' ? 'the clipboard' : 'the PRIMARY selection';
  return new Promise((resolve, reject) => {
    const child = spawn('xclip', ['-selection', selection, '-in', '-verbose'], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let served = 0;
    let ready = false;
    let exited = false;
    let log = '';
    const waiters = new Set<() => void>();
    const wake = (): void => {
      for (const w of [...waiters]) w();
    };
    const timer = setTimeout(() => {
      if (ready) return;
      child.kill();
      reject(new InsertError('TOOL_FAILED', `"xclip" did not take ${what} within ${timeoutMs} ms.`));
    }, timeoutMs);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      log = (log + chunk).slice(-4096);
      for (const m of chunk.matchAll(SERVED)) served = Math.max(served, Number(m[1]) - 1);
      if (!ready && READY.test(log)) {
        ready = true;
        clearTimeout(timer);
        resolve(witness);
      }
      wake();
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      exited = true;
      wake();
      reject(error.code === 'ENOENT' ? missingToolError('xclip') : new InsertError('TOOL_FAILED', `"xclip" could not start: ${error.message}`));
    });
    child.on('exit', (code) => {
      exited = true;
      clearTimeout(timer);
      wake();
      // Lost ownership (something else was copied) is its normal end; before "ready" it is a failure.
      if (!ready) reject(new InsertError('TOOL_FAILED', `"xclip" exited (${code ?? 'signal'}) before it owned ${what}: ${log.trim().slice(-200)}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
    const witness: SelectionWitness = {
      get served() {
        return served;
      },
      servedAfter(count, ms) {
        return new Promise<boolean>((done) => {
          const check = (): void => {
            if (served > count) finish(true);
            else if (exited) finish(false);
          };
          const finish = (value: boolean): void => {
            clearTimeout(limit);
            waiters.delete(check);
            done(value);
          };
          const limit = setTimeout(() => finish(false), ms);
          waiters.add(check);
          check();
        });
      },
      close() {
        if (!exited) child.kill();
      },
    };
  });
}
