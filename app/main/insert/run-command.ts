// Runs one external tool asynchronously (the main event loop never waits on
// it) with a time limit; a missing binary becomes a TOOL_MISSING error that
// names the package to install.
import { spawn } from 'node:child_process';
import type { Command } from './commands.js';
import { InsertError, missingToolError, toolFailedError } from './errors.js';

/** How long the result waits after a tool's exit for pipes a forked child of it may hold open. */
const kPipeGraceMs = 100;

/** Runs a command and resolves with its stdout; rejects with an InsertError. Injected in unit tests. */
export type CommandRunner = (command: Command) => Promise<string>;

export interface RunnerOptions {
  env?: NodeJS.ProcessEnv;
  /** Kill a tool that hangs (an X server that does not answer); default 10 s. */
  timeoutMs?: number;
}

export function processRunner(options: RunnerOptions = {}): CommandRunner {
  return (command) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(command.cmd, command.args, { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 10_000);
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(error.code === 'ENOENT' ? missingToolError(command.cmd) : new InsertError('TOOL_FAILED', `"${command.cmd}" could not start: ${error.message}`));
      });
      // 'exit' can come before the last of the tool's output has been read (a loaded machine: `sh -c
      // 'echo boom >&2; exit 3'` lost its "boom"; a clipboard read could come back cut short), so the
      // result waits for both pipes to end. Not for 'close' without a limit: xclip and wl-copy fork a
      // child that keeps serving the clipboard and holds the pipes open, so after the exit their ends
      // are awaited at most kPipeGraceMs.
      let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
      let openPipes = 2;
      let grace: NodeJS.Timeout | undefined;
      const settle = () => {
        if (exited === null) return;
        clearTimeout(grace);
        child.stdout.destroy();
        child.stderr.destroy();
        const { code, signal } = exited;
        exited = null;
        if (code === 0) resolve(stdout);
        else reject(signal === 'SIGKILL' && code === null
          ? new InsertError('TOOL_FAILED', `"${command.cmd}" did not finish in time.`)
          : toolFailedError(command.cmd, code, stderr));
      };
      const pipeEnded = () => {
        openPipes -= 1;
        if (openPipes === 0) settle();
      };
      child.stdout.on('end', pipeEnded);
      child.stderr.on('end', pipeEnded);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        exited = { code, signal };
        if (openPipes === 0) settle();
        else grace = setTimeout(settle, kPipeGraceMs);
      });
      child.stdin.on('error', () => undefined); // a tool that exits without reading its input
      child.stdin.end(command.input ?? '');
    });
}
