// The insert module without a display: exact command lines per OS, escaping,
// the OS path from the environment, missing-tool messages, one queue, and the
// clipboard restored only after the paste (fake runner and clock).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAccelerator } from '../../../app/ipc/accelerator.js';
import type { Clipboard } from '../../../app/main/insert/clipboard.js';
import {
  appleScriptString, clipboardReadCommand, clipboardWriteCommand, escapeSendKeys, pasteCommand, splitTypeable, typeCommand, type Command,
} from '../../../app/main/insert/commands.js';
import { InsertError, missingToolError, toolFailedError } from '../../../app/main/insert/errors.js';
import { processRunner } from '../../../app/main/insert/run-command.js';
import { detectPlatform } from '../../../app/main/insert/strategy.js';
import { TextInserter } from '../../../app/main/insert/text-inserter.js';

const TRICKY = 'He said "hi" \\ it\'s $HOME `x`\nnext line: café naïve 日本';

test('X11 and Wayland: the text is one argv element after --, untouched', () => {
  assert.deepEqual(typeCommand('x11', TRICKY), { cmd: 'xdotool', args: ['type', '--clearmodifiers', '--delay', '0', '--', TRICKY] });
  assert.deepEqual(typeCommand('wayland', TRICKY), { cmd: 'wtype', args: ['--', TRICKY] });
  assert.deepEqual(typeCommand('x11', '--help').args.slice(-2), ['--', '--help'], 'text that looks like an option stays text');
  assert.deepEqual(pasteCommand('x11'), { cmd: 'xdotool', args: ['key', '--clearmodifiers', 'ctrl+v'] });
  assert.deepEqual(pasteCommand('wayland'), { cmd: 'wtype', args: ['-M', 'ctrl', 'v', '-m', 'ctrl'] });
  assert.deepEqual(clipboardWriteCommand('x11', TRICKY), { cmd: 'xclip', args: ['-selection', 'clipboard', '-in'], input: TRICKY });
  assert.deepEqual(clipboardReadCommand('x11'), { cmd: 'xclip', args: ['-selection', 'clipboard', '-out'] });
  assert.deepEqual(clipboardWriteCommand('wayland', 'x'), { cmd: 'wl-copy', args: [], input: 'x' });
  assert.deepEqual(clipboardReadCommand('wayland'), { cmd: 'wl-paste', args: ['--no-newline'] });
});

test('macOS: an AppleScript string literal with quotes and backslashes escaped', () => {
  assert.equal(appleScriptString('a "b" \\c'), '"a \\"b\\" \\\\c"');
  assert.deepEqual(typeCommand('macos', 'say "hi"'), { cmd: 'osascript', args: ['-e', 'tell application "System Events" to keystroke "say \\"hi\\""'] });
  assert.deepEqual(pasteCommand('macos').args, ['-e', 'tell application "System Events" to keystroke "v" using command down']);
  assert.deepEqual(clipboardWriteCommand('macos', 'x'), { cmd: 'pbcopy', args: [], input: 'x' });
});

test('Windows: SendKeys special characters braced, newlines as {ENTER}, the text on stdin', () => {
  assert.equal(escapeSendKeys('a+b^c%d~e(f)g{h}i[j]'), 'a{+}b{^}c{%}d{~}e{(}f{)}g{{}h{}}i{[}j{]}');
  assert.equal(escapeSendKeys('one\r\ntwo\nthree'), 'one{ENTER}two{ENTER}three');
  assert.equal(escapeSendKeys('café "q"'), 'café "q"');
  const cmd = typeCommand('windows', '1+1');
  assert.equal(cmd.cmd, 'powershell.exe');
  assert.deepEqual(cmd.args.slice(0, 3), ['-NoProfile', '-NonInteractive', '-Command']);
  assert.match(cmd.args[3]!, /SendWait\(\[Console\]::In\.ReadToEnd\(\)\)$/);
  assert.equal(cmd.input, '1{+}1');
  assert.match(pasteCommand('windows').args[3]!, /SendWait\('\^v'\)$/);
});

test('non-ASCII runs are split off for X11 typing', () => {
  assert.deepEqual(splitTypeable('Café naïve ok'), [
    { text: 'Caf', typeable: true }, { text: 'é', typeable: false }, { text: ' na', typeable: true }, { text: 'ï', typeable: false }, { text: 've ok', typeable: true },
  ]);
  assert.deepEqual(splitTypeable('a\nb'), [{ text: 'a\nb', typeable: true }]);
});

test('the OS path comes from the platform and the session variables', () => {
  assert.equal(detectPlatform({ platform: 'linux', env: { DISPLAY: ':0' } }), 'x11');
  assert.equal(detectPlatform({ platform: 'linux', env: { DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-0' } }), 'wayland');
  assert.equal(detectPlatform({ platform: 'linux', env: {} }), null);
  assert.equal(detectPlatform({ platform: 'darwin', env: {} }), 'macos');
  assert.equal(detectPlatform({ platform: 'win32', env: {} }), 'windows');
});

test('a missing tool names its package; osascript refusals explain Accessibility', async () => {
  const e = missingToolError('wl-copy');
  assert.equal(e.reason, 'TOOL_MISSING');
  assert.match(e.message, /"wl-copy", which is not installed/);
  assert.equal(e.action, 'Install it with: sudo apt-get install wl-clipboard (the package is also called wl-clipboard on Fedora and Arch).');
  assert.match(missingToolError('xdotool').action!, /sudo apt-get install xdotool/);
  const denied = toolFailedError('osascript', 1, 'execution error: System Events got an error: osascript is not allowed to send keystrokes. (1002)');
  assert.equal(denied.reason, 'PERMISSION');
  assert.match(denied.action!, /Accessibility/);
  // The real runner: a binary that does not exist becomes TOOL_MISSING.
  await assert.rejects(processRunner()({ cmd: 'xdotool-does-not-exist', args: [] }), (err: unknown) => err instanceof InsertError && err.reason === 'TOOL_MISSING');
  await assert.rejects(processRunner()({ cmd: 'sh', args: ['-c', 'echo boom >&2; exit 3'] }), /"sh" failed \(exit 3\): boom/);
  assert.equal(await processRunner()({ cmd: 'cat', args: [], input: TRICKY }), TRICKY, 'stdin carries the text byte for byte');
});

test('the real runner keeps all of a tool\'s output, and does not wait on pipes a forked child holds', async () => {
  // Output still in the pipe when the tool exits (more than one read's worth, written right before exit).
  const big = await processRunner()({ cmd: 'sh', args: ['-c', 'head -c 300000 /dev/zero | tr "\\0" x'] });
  assert.equal(big.length, 300000);
  assert.match(big, /^x+$/);
  for (let i = 0; i < 20; i += 1) {
    await assert.rejects(processRunner()({ cmd: 'sh', args: ['-c', 'echo boom >&2; exit 3'] }), /"sh" failed \(exit 3\): boom/);
  }
  // As xclip and wl-copy do: a child that outlives the tool keeps its pipes open.
  const started = Date.now();
  assert.equal(await processRunner()({ cmd: 'sh', args: ['-c', 'sleep 5 & echo served'] }), 'served\n');
  assert.ok(Date.now() - started < 2000, `answered in ${Date.now() - started} ms, not after the forked child's 5 s`);
});

/** A fake OS: a log of what ran and when (fake clock), and a clipboard. */
function fakeOs(windowClass: string | null = null) {
  let now = 0;
  const log: string[] = [];
  let clip: string | null = 'previous';
  const clipboard: Clipboard = {
    read: async () => (log.push(`${now} read`), clip),
    write: async (t) => {
      log.push(`${now} write ${t}`);
      clip = t;
    },
  };
  const pending: (() => void)[] = [];
  const run = async (c: Command): Promise<string> => {
    log.push(`${now} run ${c.cmd} ${c.args.join(' ')}`);
    // X11 asks which window has the focus first (terminals paste differently): answered at once.
    if (c.cmd === 'xdotool' && c.args[0] === 'getwindowfocus') return windowClass === null ? '' : '42\n';
    if (c.cmd === 'xprop') return `WM_CLASS(STRING) = "${windowClass}", "${windowClass}"\n`;
    await new Promise<void>((r) => pending.push(r)); // each tool takes until the test lets it finish
    return '';
  };
  const sleep = async (ms: number): Promise<void> => {
    now += ms;
  };
  return { log, clipboard, run, sleep, pending, get clip() { return clip; }, set clip(v) { clip = v; } };
}

const flush = () => new Promise((r) => setImmediate(r));

test('paste: clipboard saved, text written, Ctrl+V, then the old clipboard back only after the delay', async () => {
  const os = fakeOs();
  const inserter = new TextInserter({ platform: 'x11', run: os.run, clipboard: os.clipboard, sleep: os.sleep });
  const done = inserter.deliver('hello', { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
  await flush();
  assert.deepEqual(os.log, ['0 run xdotool getwindowfocus', '0 read', '0 write hello', '0 run xdotool key --clearmodifiers ctrl+v']);
  assert.equal(os.clip, 'hello', 'not restored while the paste keystroke is still running');
  os.pending.shift()!();
  const outcome = await done;
  assert.deepEqual(os.log.slice(4), ['300 read', '300 write previous']);
  assert.equal(os.clip, 'previous');
  // Without a way to see the target read the clipboard, the outcome claims only that the keystroke was sent.
  assert.deepEqual([outcome.method, outcome.confirmed], ['pasted', false]);
  assert.match(outcome.detail, /cannot be seen/);
});

test('paste into a terminal (WM_CLASS on the list) sends Ctrl+Shift+V; an xterm-like one is typed into', async () => {
  const os = fakeOs('gnome-terminal-server');
  const inserter = new TextInserter({ platform: 'x11', run: os.run, clipboard: os.clipboard, sleep: os.sleep });
  const done = inserter.deliver('ls -la', { mode: 'paste', restoreClipboard: false, restoreDelayMs: 300 });
  await flush();
  assert.deepEqual(os.log.slice(0, 2), ['0 run xdotool getwindowfocus', '0 run xprop -id 42 WM_CLASS']);
  assert.equal(os.log.at(-1), '0 run xdotool key --clearmodifiers ctrl+shift+v');
  os.pending.shift()!();
  assert.equal((await done).terminal, true);

  const xterm = fakeOs('xterm');
  const typing = new TextInserter({ platform: 'x11', run: xterm.run, clipboard: xterm.clipboard, sleep: xterm.sleep });
  const typed = typing.deliver('echo hi', { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
  await flush();
  assert.equal(xterm.log.at(-1), '0 run xdotool type --clearmodifiers --delay 0 -- echo hi');
  xterm.pending.shift()!();
  assert.deepEqual([(await typed).method, xterm.clip], ['typed', 'previous'], 'typed, the clipboard untouched');
});

test('paste: something the user copied meanwhile is not overwritten; restore off keeps our text', async () => {
  const os = fakeOs();
  const inserter = new TextInserter({ platform: 'x11', run: os.run, clipboard: os.clipboard, sleep: os.sleep });
  const done = inserter.deliver('hello', { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
  await flush();
  os.clip = 'copied by the user';
  os.pending.shift()!();
  await done;
  assert.equal(os.clip, 'copied by the user');
  const off = inserter.deliver('again', { mode: 'paste', restoreClipboard: false, restoreDelayMs: 300 });
  await flush();
  os.pending.shift()!();
  await off;
  assert.equal(os.clip, 'again');
});

test('one queue: the second delivery starts after the first one (and its restore) is done; a failure does not block it', async () => {
  const os = fakeOs();
  let fail = true;
  const run = async (c: Command): Promise<string> => {
    if (fail) {
      fail = false;
      throw new InsertError('TOOL_FAILED', 'x');
    }
    return os.run(c);
  };
  const inserter = new TextInserter({ platform: 'macos', run, clipboard: os.clipboard, sleep: os.sleep });
  const a = inserter.deliver('first', { mode: 'type', restoreClipboard: false, restoreDelayMs: 0 });
  const b = inserter.deliver('second', { mode: 'type', restoreClipboard: false, restoreDelayMs: 0 });
  const c = inserter.deliver('third', { mode: 'type', restoreClipboard: false, restoreDelayMs: 0 });
  await assert.rejects(a, /x/);
  await flush();
  const keystroke = (t: string): string => `0 run osascript -e tell application "System Events" to keystroke "${t}"`;
  assert.deepEqual(os.log, [keystroke('second')], 'third waits for second');
  os.pending.shift()!();
  await b;
  await flush();
  assert.deepEqual(os.log, [keystroke('second'), keystroke('third')]);
  os.pending.shift()!();
  await c;
});

test('accelerators: modifiers + one key; garbage and bare letters refused', () => {
  for (const ok of ['CommandOrControl+Shift+Space', 'Ctrl+Alt+D', 'Super+F5', 'F9', 'Alt+Plus', 'CmdOrCtrl+Shift+1', 'Control+/']) {
    assert.equal(checkAccelerator(ok).ok, true, ok);
  }
  const parsed = checkAccelerator('Ctrl+Shift+Space');
  assert.deepEqual(parsed, { ok: true, modifiers: ['Ctrl', 'Shift'], key: 'Space' });
  for (const bad of ['', 'A', 'space', 'Ctrl+', 'Ctrl+Shift', 'Ctrl++A', 'Hyper+A', 'Ctrl+Ctrl+A', 'Ctrl+Foo', 'Ctrl+AB', '+++', 'x'.repeat(200)]) {
    const r = checkAccelerator(bad);
    assert.equal(r.ok, false, bad);
  }
  const bare = checkAccelerator('A');
  assert.ok(!bare.ok && /needs a modifier/.test(bare.reason));
});

test('Wayland: a compositor that refuses wtype → ydotool types (wtype not tried again); with neither → copied, "press Ctrl+V"', async () => {
  const calls: string[] = [];
  let ydotool = true;
  let clip: string | null = null;
  const run = async (c: Command): Promise<string> => {
    calls.push(c.cmd);
    if (c.cmd === 'wtype') throw new InsertError('TOOL_FAILED', '"wtype" failed (exit 1): Compositor does not support the virtual keyboard protocol.');
    if (c.cmd === 'ydotool' && !ydotool) throw new InsertError('TOOL_MISSING', '"ydotool" was not found');
    return '';
  };
  const inserter = new TextInserter({
    platform: 'wayland', run, sleep: async () => undefined,
    clipboard: { read: async () => clip, write: async (t) => void (clip = t) },
  });
  const first = await inserter.deliver('hello', { mode: 'type', restoreClipboard: false, restoreDelayMs: 0 });
  assert.deepEqual([first.method, first.detail], ['typed', 'Typed with ydotool into the focused window.']);
  assert.deepEqual(calls, ['wtype', 'ydotool']);
  await inserter.deliver('again', { mode: 'type', restoreClipboard: false, restoreDelayMs: 0 });
  assert.deepEqual(calls, ['wtype', 'ydotool', 'ydotool'], 'wtype is not asked again');
  ydotool = false;
  const copied = await inserter.deliver('last', { mode: 'paste', restoreClipboard: true, restoreDelayMs: 0 });
  assert.equal(copied.method, 'copied');
  assert.match(copied.detail, /^Copied — press Ctrl\+V/);
  assert.equal(clip, 'last');
});
