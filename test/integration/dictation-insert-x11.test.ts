// A real dictation session (real services, engine process, tiny generated
// model) with settings.insert.mode 'type' on an Xvfb display: every final lands
// in the focused textarea of another application (a headed Chromium), in
// order, separated by single spaces — exactly the session's text.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { EventMap } from '../../app/ipc/contract.js';
import { createServices, type Services } from '../../app/main/services.js';
import { concat, quiet, speechLike } from '../unit/app/signals.js';
import { dictate, tempDir, tinyModel, writeTestSettings } from './helpers.js';
import { openTkTarget, tkSkipReason } from './x11-tk-target.js';
import { openX11Target, settle, x11SkipReason, type X11Target } from './x11-target.js';

const skip = x11SkipReason();
let target: X11Target;
let services: Services;

before(async () => {
  if (skip) return;
  target = await openX11Target();
  const dir = tempDir('dictation-insert');
  writeTestSettings(dir, { insert: { mode: 'type', restoreClipboard: true, restoreDelayMs: 300 } });
  services = await createServices({
    userDataDir: dir, mode: 'web', engineMode: 'process', modelPath: tinyModel(dir, 'tdt'), modelEndpoint: 'https://127.0.0.1:9', insertEnv: target.env,
  });
  await services.ready;
});
after(async () => {
  await services?.dispose();
  await target?.close();
});

test('the finals of a live session are typed into the focused app, space-separated', { skip: skip ?? false }, async () => {
  await target.reset();
  const audio = concat(quiet(0.6, 1), speechLike(1.6, 21), quiet(0.9, 2), speechLike(1.2, 22), quiet(0.9, 3), speechLike(1.0, 23), quiet(1.0, 4));
  const summary = await dictate(services, audio, 2);
  await services.insert.idle();
  const expected = summary.segments.map((s) => s.text.trim()).filter(Boolean).join(' ');
  assert.ok(summary.segments.filter((s) => s.text.trim()).length >= 2, 'at least two finals with text (so the separator is tested)');
  assert.equal(await settle(() => target.value(), expected), expected);
});

test('paste mode into a terminal (a Tk client with WM_CLASS kitty): each final arrives through Ctrl+Shift+V, the clipboard comes back', { skip: skip ?? tkSkipReason() ?? false }, async () => {
  const terminal = await openTkTarget(target.env, 'kitty');
  try {
    await services.settings.set({ insert: { mode: 'paste', restoreClipboard: true } });
    await terminal.reset();
    await target.writeClipboard('the user copied this');
    const deliveries: EventMap['dictation:inserted'][] = [];
    const off = services.bus.on('dictation:inserted', (d) => deliveries.push(d));
    const audio = concat(quiet(0.6, 5), speechLike(1.4, 31), quiet(0.9, 6), speechLike(1.1, 32), quiet(1.0, 7));
    const summary = await dictate(services, audio, 2);
    await services.insert.idle();
    off();
    // Each final's delivery is reported for the latency panel: pasted, and known to be read by the terminal.
    const withText = summary.segments.filter((f) => f.text.trim());
    assert.deepEqual(deliveries.map((d) => [d.segmentId, d.method, d.confirmed]), withText.map((f) => [f.segmentId, 'pasted', true]));
    console.log(`# final → text in the terminal (paste, read confirmed, clipboard restored): ${deliveries.map((d) => `${d.ms} ms`).join(', ')}`);
    const expected = summary.segments.map((s) => s.text.trim()).filter(Boolean).join(' ');
    assert.ok(expected.length > 0, 'the session produced text');
    assert.equal(await settle(async () => terminal.value(), expected), expected);
    assert.ok(!terminal.value().includes('^V'), 'no plain Ctrl+V reached the terminal');
    assert.equal(await target.readClipboard(), 'the user copied this');
  } finally {
    terminal.close();
    await services.settings.set({ insert: { mode: 'type' } });
  }
});
