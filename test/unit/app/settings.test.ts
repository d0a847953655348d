// Settings store: defaults, atomic persistence, validation of patches,
// recovery from a corrupt file (defaults + notice + .bak), per-field reset of
// invalid values, migration of the version-0 layout.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_SETTINGS, SETTINGS_VERSION } from '../../../app/ipc/settings.js';
import { nullLogger } from '../../../app/main/log.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { scratch } from './tmp.js';

test('no file: defaults, and nothing written until something changes', async () => {
  const dir = scratch('settings');
  const store = await SettingsStore.open(dir, nullLogger);
  assert.deepEqual(store.get(), DEFAULT_SETTINGS);
  assert.deepEqual(store.loadNotices, []);
  assert.equal(existsSync(join(dir, 'settings.json')), false);
});

test('set: validated, merged, persisted atomically, announced; concurrent sets all land', async () => {
  const dir = scratch('settings');
  const store = await SettingsStore.open(dir, nullLogger);
  const changes: string[] = [];
  store.on('changed', ({ next, previous }) => changes.push(`${previous.threads}->${next.threads}`));
  const [a, b] = await Promise.all([
    store.set({ threads: 2, dictation: { pauseMs: 800 } }),
    store.set({ device: 'CPU', audio: { noiseSuppression: true } }),
  ]);
  assert.equal(a.threads, 2);
  assert.equal(b.device, 'CPU');
  const now = store.get();
  assert.equal(now.threads, 2);
  assert.equal(now.device, 'CPU');
  assert.equal(now.dictation.pauseMs, 800);
  assert.equal(now.dictation.maxSegmentSec, DEFAULT_SETTINGS.dictation.maxSegmentSec, 'nested patch keeps the other fields');
  assert.equal(now.audio.noiseSuppression, true);
  assert.deepEqual(changes, ['0->2', '2->2']);
  const file = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as { version: number; settings: unknown };
  assert.equal(file.version, SETTINGS_VERSION);
  assert.deepEqual(file.settings, now);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('.tmp')), [], 'no temp files left');
  // A fresh store reads the same values.
  assert.deepEqual((await SettingsStore.open(dir, nullLogger)).get(), now);
});

test('set: an invalid patch is refused with INVALID_PAYLOAD and changes nothing', async () => {
  const dir = scratch('settings');
  const store = await SettingsStore.open(dir, nullLogger);
  await store.set({ threads: 4 });
  const before = readFileSync(join(dir, 'settings.json'), 'utf8');
  for (const bad of [{ threads: -1 }, { dictation: { pauseMs: 10 } }, { weightType: 'q2' }, { mirrorEndpoint: 'http://x' }, { nope: 1 }]) {
    await assert.rejects(store.set(bad as never), (e: Error & { code?: string }) => e.code === 'INVALID_PAYLOAD', JSON.stringify(bad));
  }
  assert.equal(readFileSync(join(dir, 'settings.json'), 'utf8'), before);
  assert.equal(store.get().threads, 4);
});

test('corrupt file: defaults apply, a notice says so, the original is kept as .bak', async () => {
  const dir = scratch('settings');
  const garbage = '{"version":1,"settings":{"threads":';
  writeFileSync(join(dir, 'settings.json'), garbage);
  const store = await SettingsStore.open(dir, nullLogger);
  assert.deepEqual(store.get(), DEFAULT_SETTINGS);
  assert.equal(store.loadNotices.length, 1);
  assert.equal(store.loadNotices[0]!.code, 'SETTINGS_RESET');
  assert.match(store.loadNotices[0]!.message, /settings\.json\.bak/);
  assert.equal(readFileSync(join(dir, 'settings.json.bak'), 'utf8'), garbage);
  // The rewritten file is valid again.
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')).settings, DEFAULT_SETTINGS);
});

test('invalid fields are reset one by one (named in the notice); valid ones are kept', async () => {
  const dir = scratch('settings');
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({
    version: 1,
    settings: { threads: 3, device: 42, engineMode: 'inline', dictation: { pauseMs: 700, vadThresholdDb: 'loud' }, audio: 'on', extra: true },
  }));
  const store = await SettingsStore.open(dir, nullLogger);
  const s = store.get();
  assert.equal(s.threads, 3);
  assert.equal(s.engineMode, 'inline');
  assert.equal(s.dictation.pauseMs, 700);
  assert.equal(s.device, DEFAULT_SETTINGS.device);
  assert.equal(s.dictation.vadThresholdDb, DEFAULT_SETTINGS.dictation.vadThresholdDb);
  assert.deepEqual(s.audio, DEFAULT_SETTINGS.audio);
  assert.equal(store.loadNotices.length, 1);
  for (const field of ['device', 'dictation.vadThresholdDb', 'audio']) assert.match(store.loadNotices[0]!.message, new RegExp(field.replace('.', '\\.')));
  assert.ok(existsSync(join(dir, 'settings.json.bak')));
});

test('version-0 layout (the settings object itself) is migrated', async () => {
  const dir = scratch('settings');
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ threads: 1, decoder: 'ctc' }));
  const store = await SettingsStore.open(dir, nullLogger);
  assert.equal(store.get().threads, 1);
  assert.equal(store.get().decoder, 'ctc');
  assert.deepEqual(store.loadNotices, []);
  const file = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as { version: number };
  assert.equal(file.version, SETTINGS_VERSION, 'rewritten in the current layout');
});

test('set on a full disk: DISK_FULL in one clear sentence (no raw errno text), nothing changes', async () => {
  const dir = scratch('settings');
  // A real ENOSPC from the kernel: /dev/full refuses every write (elsewhere, the same error made by hand).
  const full = async (): Promise<void> => {
    if (process.platform === 'linux') await writeFile('/dev/full', 'x'.repeat(4096));
    else throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  const store = await SettingsStore.open(dir, nullLogger, { writeJson: full });
  let changed = 0;
  store.on('changed', () => (changed += 1));
  await assert.rejects(store.set({ threads: 3 }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'DISK_FULL');
    assert.equal(e.message, 'The setting was not saved: the disk is full; free some space and change the setting again. The previous settings stay in effect.');
    assert.doesNotMatch(e.message, /ENOSPC/);
    return true;
  });
  assert.equal(store.get().threads, DEFAULT_SETTINGS.threads, 'the change did not apply');
  assert.equal(changed, 0);
  // Permission problems are IO_ERROR, said as such.
  const readOnly = await SettingsStore.open(dir, nullLogger, {
    writeJson: async () => {
      throw Object.assign(new Error('EROFS: read-only file system, open'), { code: 'EROFS' });
    },
  });
  await assert.rejects(readOnly.set({ threads: 3 }), { code: 'IO_ERROR', message: /settings\.json cannot be written \(read-only file system\)\. The previous/ });
});
