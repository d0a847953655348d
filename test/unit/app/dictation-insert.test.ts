// Finals → inserter: space-separated per session, nothing while our window has
// focus, and a failure reported once per session with the install hint.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InsertSettings, Notice, TranscriptEvent } from '../../../app/ipc/contract.js';
import { EventBus } from '../../../app/main/events.js';
import type { Command } from '../../../app/main/insert/commands.js';
import { DictationInsert } from '../../../app/main/insert/dictation-insert.js';
import { missingToolError } from '../../../app/main/insert/errors.js';
import { TextInserter } from '../../../app/main/insert/text-inserter.js';
import { nullLogger } from '../../../app/main/log.js';

const final = (sessionId: string, segmentId: number, text: string): TranscriptEvent =>
  ({ sessionId, segmentId, kind: 'final', text, words: [], start: 0, end: 1, devicesRan: ['CPU'] });

function setup(run: (c: Command) => Promise<string>, focused = false) {
  const bus = new EventBus();
  const notices: Notice[] = [];
  bus.on('notice', (n) => notices.push(n));
  const clip = { text: null as string | null };
  const inserter = new TextInserter({
    platform: 'wayland', run, sleep: async () => undefined,
    clipboard: { read: async () => clip.text, write: async (t) => void (clip.text = t) },
  });
  const settings: InsertSettings = { mode: 'type', restoreClipboard: true, restoreDelayMs: 300 };
  const insert = new DictationInsert({ bus, inserter, settings: () => settings, ownWindowFocused: () => focused, log: nullLogger });
  return { bus, notices, clip, insert, settings };
}

test('finals are typed in order with one space between segments; partials and empty finals are not', async () => {
  const typed: string[] = [];
  const { bus, insert } = setup(async (c) => (typed.push(c.args.at(-1)!), ''));
  bus.emit('dictation:transcript', { ...final('s1', 0, 'partial'), kind: 'partial' });
  bus.emit('dictation:transcript', final('s1', 0, ' Hello there. '));
  bus.emit('dictation:transcript', final('s1', 1, ''));
  bus.emit('dictation:transcript', final('s1', 2, 'Second one.'));
  await insert.idle();
  assert.deepEqual(typed, ['Hello there.', ' Second one.']);
  insert.dispose();
});

test('nothing is inserted while our own window has the focus', async () => {
  const typed: string[] = [];
  const { bus, insert } = setup(async (c) => (typed.push(c.args.at(-1)!), ''), true);
  bus.emit('dictation:transcript', final('s1', 0, 'Hello'));
  await insert.idle();
  assert.deepEqual(typed, []);
});

test('Wayland without wtype or ydotool: copied, one notice per session saying "press Ctrl+V" and what to install', async () => {
  const { bus, notices, clip, insert } = setup(async (c) => {
    throw missingToolError(c.cmd);
  });
  bus.emit('dictation:transcript', final('s1', 0, 'One.'));
  bus.emit('dictation:transcript', final('s1', 1, 'Two.'));
  await insert.idle();
  await new Promise((r) => setTimeout(r, 10));
  await insert.idle();
  assert.equal(notices.length, 1);
  assert.equal(notices[0]!.code, 'INSERT_COPIED');
  assert.match(notices[0]!.message, /^Copied — press Ctrl\+V to paste it\..*The dictation so far is on the clipboard\.$/);
  assert.match(notices[0]!.action!, /wtype .* or ydotool/);
  assert.equal(clip.text, 'One. Two.');
  bus.emit('dictation:transcript', final('s2', 0, 'Again.'));
  await new Promise((r) => setTimeout(r, 10));
  await insert.idle();
  assert.equal(notices.length, 2, 'a new session reports again');
});
