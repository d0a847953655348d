// Real insertion on X11: Xvfb, a headed Chromium with a focused textarea, and
// the TextInserter running the real xdotool and xclip. Type and paste modes
// must put exactly the text there (unicode, quotes, a space between
// segments), and paste mode must leave the previous clipboard in place.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTextInserter } from '../../app/main/insert/create.js';
import type { TextInserter } from '../../app/main/insert/text-inserter.js';
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
