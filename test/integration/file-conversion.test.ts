// Files that are not WAV: converted by the machine's ffmpeg or sox into a
// temporary WAV the engine reads (the real engine process, real sox). A
// lossless FLAC of a 16-bit 16 kHz WAV must give exactly the WAV's
// transcript; garbage is refused with the converter's words; without a
// converter the error says how to install one; the temporary file is gone.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Services } from '../../app/main/services.js';
import { conversionArgs, findConverter, isWavFile } from '../../app/main/files/audio-converter.js';
import { encodeWav16 } from '../../app/shared/wav.js';
import { writeSparseWav } from '../support/audio/sparse-wav.js';
import { RATE, concat, quiet, speechLike } from '../support/audio/signals.js';
import { startTestServices, tempDir, tinyModel, writeTestSettings } from './helpers.js';

const sox = spawnSync('sox', ['--version'], { encoding: 'utf8' });
const skip = sox.status === 0 ? false : 'sox is not installed (sudo apt-get install sox; .ci/run installs it)';

const dir = tempDir('convert');
// Only sox on the search path (ffmpeg, when the machine has it, is checked by the argument test below).
const soxOnly = join(dir, 'bin-sox');
const nothing = join(dir, 'bin-empty');
let services: Services;
let noConverter: Services;

before(async () => {
  mkdirSync(soxOnly, { recursive: true });
  mkdirSync(nothing, { recursive: true });
  if (!skip) symlinkSync('/usr/bin/sox', join(soxOnly, 'sox'));
  const modelPath = tinyModel(dir, 'tdt');
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  mkdirSync(a);
  mkdirSync(b);
  writeTestSettings(a);
  writeTestSettings(b);
  services = await startTestServices(a, modelPath, { converterSearchPath: soxOnly });
  noConverter = await startTestServices(b, modelPath, { converterSearchPath: nothing });
});
after(async () => {
  await services?.dispose();
  await noConverter?.dispose();
});

function scratchFiles(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('parakeet-convert-'));
}

test('a FLAC recording is converted by sox and transcribed exactly like the WAV it came from', { skip }, async () => {
  const wav = join(dir, 'meeting.wav');
  const flac = join(dir, 'meeting.flac');
  writeFileSync(wav, encodeWav16(concat(quiet(0.3, 7), speechLike(2.2, 71), quiet(0.4, 8)), RATE));
  const made = spawnSync('sox', [wav, flac], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  assert.equal(await isWavFile(flac), false);
  const before = scratchFiles();

  const fromWav = await services.files.transcribe(wav);
  const fromFlac = await services.files.transcribe(flac);
  assert.ok(fromWav.text, 'the random model says something');
  assert.equal(fromFlac.text, fromWav.text);
  assert.deepEqual(fromFlac.words, fromWav.words);
  assert.equal(fromFlac.durationSec, fromWav.durationSec);
  assert.equal(fromFlac.path, flac, 'the result names the user file, not the temporary WAV');
  assert.deepEqual(scratchFiles(), before, 'the temporary WAV is removed');
});

test('a file no converter can read is refused with the converter\'s own words', { skip }, async () => {
  const junk = join(dir, 'notes.mp3');
  writeFileSync(junk, 'these are not audio bytes at all, just text in a file named .mp3');
  await assert.rejects(services.files.transcribe(junk), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'BAD_AUDIO');
    assert.match(error.message, /notes\.mp3 is not a WAV file, and sox could not convert it \(\S/);
    assert.match(error.message, /ffmpeg -i "notes\.mp3" -ar 16000 -ac 1 out\.wav/);
    return true;
  });
});

test('an empty file is refused as empty, whatever its name, before any converter runs', async () => {
  for (const name of ['empty.wav', 'empty.m4a']) {
    const file = join(dir, name);
    writeFileSync(file, '');
    await assert.rejects(services.files.transcribe(file), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'BAD_AUDIO');
      assert.match(error.message, /is empty \(0 bytes\)/);
      return true;
    });
  }
});

test('a device, a FIFO and a /proc file are "not a regular file", not "empty"', { skip: process.platform !== 'linux' && 'Linux paths' }, async () => {
  const fifo = join(dir, 'fifo.wav');
  execFileSync('mkfifo', [fifo]);
  for (const file of ['/dev/zero', fifo, '/proc/self/environ']) {
    await assert.rejects(services.files.transcribe(file), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'BAD_ARGUMENT', error.message);
      assert.match(error.message, /is not a regular file/);
      assert.doesNotMatch(error.message, /empty/);
      return true;
    });
  }
});

test('a WAV over 24 hours is refused by the engine process from its header, at once', async () => {
  const long = join(dir, 'over-24h.wav');
  writeSparseWav(long, { format: 1, bits: 8, channels: 1, rate: 1000, dataBytes: 256 * 1024 ** 2 });
  const started = performance.now();
  await assert.rejects(services.files.transcribe(long), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'BAD_AUDIO', error.message);
    assert.match(error.message, /74\.6 hours long; at most 24 hours/);
    return true;
  });
  assert.ok(performance.now() - started < 3000, `refused at once (${(performance.now() - started).toFixed(0)} ms)`);
});

test('without ffmpeg or sox the error says how to install one and how to convert by hand', async () => {
  const m4a = join(dir, 'voice memo.m4a');
  writeFileSync(m4a, Buffer.from('....ftypM4A fake'));
  await assert.rejects(noConverter.files.transcribe(m4a), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'BAD_AUDIO');
    assert.match(error.message, /voice memo\.m4a is not a WAV file, and neither ffmpeg nor sox is installed/);
    assert.match(error.message, /sudo apt-get install ffmpeg/);
    assert.match(error.message, /ffmpeg -i "voice memo\.m4a" -ar 16000 -ac 1 out\.wav/);
    return true;
  });
  assert.equal(await findConverter(nothing), null);
});

test('ffmpeg, when present, is preferred and asked for 16 kHz mono 16-bit PCM, audio only', async () => {
  assert.deepEqual(conversionArgs('ffmpeg', 'in.m4a', 'out.wav'), [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-i', 'in.m4a', '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-f', 'wav', 'out.wav',
  ]);
  const both = join(dir, 'bin-both');
  mkdirSync(both, { recursive: true });
  writeFileSync(join(both, 'ffmpeg'), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(join(both, 'sox'), '#!/bin/sh\n', { mode: 0o755 });
  assert.equal((await findConverter(both))?.name, 'ffmpeg');
});
