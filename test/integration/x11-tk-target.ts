// A second real X11 client for the insertion tests: a Tk window (python3 +
// tkinter) whose WM_CLASS we choose, so it can stand in for a terminal. Like a
// terminal it pastes the clipboard on Ctrl+Shift+V, the PRIMARY selection on
// Shift+Insert (as xterm does), and takes Ctrl+V as a control character (it
// writes "^V"); with `deaf` it ignores them all, like a
// window without a text field. It prints its text as a JSON line whenever it
// changes; the test reads the last one.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { pathScanner } from '../../app/main/insert/requirements.js';

const exec = promisify(execFile);

const SCRIPT = String.raw`
import json, sys, tkinter as tk
cls, deaf = sys.argv[1], sys.argv[2] == '1'
root = tk.Tk(className=cls)
root.geometry('200x300+820+0')
text = tk.Text(root)
text.pack(fill='both', expand=True)
def paste(event):
    if not deaf:
        try:
            text.insert('insert', root.clipboard_get(type='UTF8_STRING'))
        except tk.TclError:
            pass
    return 'break'
def control_v(event):
    if not deaf:
        text.insert('insert', '^V')
    return 'break'
for seq in ('<Control-V>', '<Control-Shift-V>', '<Control-Shift-v>'):
    text.bind(seq, paste)
text.bind('<Control-v>', control_v)
def paste_primary(event):
    # As xterm and urxvt do on Shift+Insert: the PRIMARY selection.
    if not deaf:
        try:
            text.insert('insert', root.selection_get(selection='PRIMARY', type='UTF8_STRING'))
        except tk.TclError:
            pass
    return 'break'
text.bind('<Shift-Insert>', paste_primary)
last = [None]
def report():
    value = text.get('1.0', 'end-1c')
    if value != last[0]:
        last[0] = value
        sys.stdout.write(json.dumps(value) + '\n')
        sys.stdout.flush()
    root.after(30, report)
def clear_on_request():
    line = sys.stdin.readline()
    if line.strip() == 'clear':
        text.delete('1.0', 'end')
root.createfilehandler(sys.stdin, tk.READABLE, lambda *a: clear_on_request())
text.focus_force()
report()
root.mainloop()
`;

/** Why the Tk target cannot run here, or null. */
export function tkSkipReason(): string | null {
  try {
    execFileSync('python3', ['-c', 'import tkinter'], { stdio: 'ignore' });
  } catch {
    return 'python3 with tkinter is missing (apt-get install python3-tk)';
  }
  if (!pathScanner(process.env, process.platform)('xprop')) return 'xprop is missing (apt-get install x11-utils)';
  return null;
}

export interface TkTarget {
  value(): string;
  /** Empties the text and gives the window the keyboard focus. */
  reset(): Promise<void>;
  close(): void;
}

export async function openTkTarget(env: NodeJS.ProcessEnv, wmClass: string, deaf = false): Promise<TkTarget> {
  const child: ChildProcess = spawn('python3', ['-c', SCRIPT, wmClass, deaf ? '1' : '0'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  let value: string | null = null;
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) if (line) value = JSON.parse(line) as string;
  });
  const end = Date.now() + 10_000;
  while (value === null) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`the Tk target (${wmClass}) did not start`);
    await new Promise((r) => setTimeout(r, 30));
  }
  const focus = async (): Promise<void> => {
    // No window manager: the keyboard focus follows the pointer (the window sits right of the Chromium target).
    await exec('xdotool', ['mousemove', '900', '150', 'click', '1'], { env });
  };
  await focus();
  return {
    value: () => value ?? '',
    async reset() {
      child.stdin!.write('clear\n');
      const until = Date.now() + 3000;
      while (value !== '' && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      await focus();
    },
    close: () => void child.kill(),
  };
}
