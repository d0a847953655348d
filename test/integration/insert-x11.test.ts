// Real insertion on X11: Xvfb, a headed Chromium with a focused textarea, and
// the TextInserter running the real xdotool and xclip. Type and paste modes
// must put exactly the text there (unicode, quotes, a space between
// segments), and paste mode must leave the previous clipboard in place.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTextInserter } from '../../app/main/insert/create.js';
import type { TextInserter } from '../../app/main/insert/text-inserter.js';
import { openTkTarget, tkSkipReason } from './x11-tk-target.js';
import { openX11Target, settle, x11SkipReason, type X11Target } from './x11-target.js';

const skip = x11SkipReason();
let target: X11Target;
let inserter: TextInserter;

before(async () => {
  if (skip) return;
  target = await openX11Target();
  const created = createTextInserter({ platform: 'linux', env: target.env });
  assert.ok(created);
  assert.equal(created.platform, 'x11');
  inserter = created;
});
after(async () => {
  await target?.close();
});

const SEGMENTS = ['Café naïve façade.', ' He said "hi" and it\'s fine', ' (1+1=2) {ok} 100% ~tilde'];
const EXPECTED = SEGMENTS.join('');

test('type mode types every segment into the focused textarea', { skip: skip ?? false }, async () => {
  await target.reset();
  for (const s of SEGMENTS) await inserter.deliver(s, { mode: 'type', restoreClipboard: false, restoreDelayMs: 300 });
  assert.equal(await settle(() => target.value(), EXPECTED), EXPECTED);
});

test('paste mode pastes every segment and restores the previous clipboard after the paste', { skip: skip ?? false }, async () => {
  await target.reset();
  await target.writeClipboard('what the user had copied');
  for (const s of SEGMENTS) await inserter.deliver(s, { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
  assert.equal(await settle(() => target.value(), EXPECTED), EXPECTED);
  assert.equal(await target.readClipboard(), 'what the user had copied');
});

test('copy mode only puts the text on the clipboard', { skip: skip ?? false }, async () => {
  await target.reset();
  await inserter.deliver('copied, not typed', { mode: 'copy', restoreClipboard: true, restoreDelayMs: 300 });
  assert.equal(await target.readClipboard(), 'copied, not typed');
  assert.equal(await target.value(), '');
});

// ---- what the inserter knows, and terminals (a Tk client standing in for one: see x11-tk-target.ts)

const tkSkip = skip ?? tkSkipReason();

test('paste is confirmed by the target reading the clipboard; the previous clipboard comes back only after that read', { skip: skip ?? false }, async () => {
  await target.reset();
  await target.writeClipboard('kept for the user');
  const started = performance.now();
  const outcome = await inserter.deliver('read by Chromium', { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
  const ms = performance.now() - started;
  assert.deepEqual([outcome.method, outcome.confirmed, outcome.terminal], ['pasted', true, false], outcome.detail);
  assert.equal(await settle(() => target.value(), 'read by Chromium'), 'read by Chromium');
  assert.equal(await target.readClipboard(), 'kept for the user');
  console.log(`# paste with read confirmation into Chromium: ${ms.toFixed(0)} ms from start to clipboard restored`);
});

test('a terminal (WM_CLASS alacritty) gets Ctrl+Shift+V, not the Ctrl+V it would take as a control key', { skip: tkSkip ?? false }, async () => {
  const terminal = await openTkTarget(target.env, 'alacritty');
  try {
    await terminal.reset();
    await target.writeClipboard('before');
    const outcome = await inserter.deliver('git status --short', { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
    assert.deepEqual([outcome.method, outcome.confirmed, outcome.terminal], ['pasted', true, true], outcome.detail);
    assert.equal(await settle(async () => terminal.value(), 'git status --short'), 'git status --short');
    assert.equal(await target.readClipboard(), 'before');
  } finally {
    terminal.close();
  }
});

test('the same window under a class that is no terminal gets Ctrl+V (which it takes as "^V"): the class decides', { skip: tkSkip ?? false }, async () => {
  const app = await openTkTarget(target.env, 'some-editor');
  try {
    await app.reset();
    const outcome = await inserter.deliver('hello', { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
    assert.equal(outcome.terminal, false);
    assert.equal(await settle(async () => app.value(), '^V'), '^V');
    // It never read the clipboard, so the inserter does not claim a paste: the text stays there for the user.
    assert.equal(outcome.method, 'copied');
    assert.match(outcome.detail, /did not read the clipboard/);
    assert.equal(await target.readClipboard(), 'hello');
  } finally {
    app.close();
  }
});

test('an xterm-like terminal (no clipboard key) is typed into', { skip: tkSkip ?? false }, async () => {
  const xterm = await openTkTarget(target.env, 'xterm');
  try {
    await xterm.reset();
    await target.writeClipboard('untouched');
    const outcome = await inserter.deliver('echo typed', { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
    assert.deepEqual([outcome.method, outcome.terminal], ['typed', true]);
    assert.equal(await settle(async () => xterm.value(), 'echo typed'), 'echo typed');
    assert.equal(await target.readClipboard(), 'untouched');
  } finally {
    xterm.close();
  }
});

test('an xterm-like terminal gets non-ASCII finals whole (pasted from PRIMARY with Shift+Insert, the key it has), ASCII typed', { skip: tkSkip ?? false }, async () => {
  const xterm = await openTkTarget(target.env, 'xterm');
  try {
    const finals = ['echo Café naïve façade', ' — “quoted” 日本語 😀', ' done'];
    const expected = finals.join('');
    for (let round = 0; round < 3; round += 1) {
      await xterm.reset();
      await target.writeClipboard('untouched');
      for (const final of finals) {
        const outcome = await inserter.deliver(final, { mode: 'paste', restoreClipboard: true, restoreDelayMs: 300 });
        assert.equal(outcome.terminal, true);
      }
      assert.equal(await settle(async () => xterm.value(), expected), expected, `round ${round}`);
      assert.equal(await target.readClipboard(), 'untouched', 'the clipboard is not touched');
    }
  } finally {
    xterm.close();
  }
});
