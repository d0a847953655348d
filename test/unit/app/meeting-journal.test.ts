// Meeting audio on disk first: the WAV journal writer (header fixed at each sync, samples exact),
// its repair after a crash (sizes from the file's length, a torn sample dropped), a writer SIGKILLed
// mid-write in a child process (everything up to ≤ 2 s before the kill is recovered, sample-exact),
// and the History side: a meeting journal left open is closed as recovered with its finals, markers
// and repaired audio; deleting the entry deletes its audio.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { HistorySettings, Notice } from '../../../app/ipc/contract.js';
import { HistoryService } from '../../../app/main/history/history-service.js';
import { nullLogger } from '../../../app/main/log.js';
import { repairWav, WavJournalWriter, WAV_HEADER_BYTES } from '../../../app/main/meeting/wav-journal.js';
import { decodeWav } from '../../../app/shared/wav.js';
import { rampInt, rampValue } from './meeting-ramp.js';
import { scratch } from './tmp.js';

function ramp(from: number, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 1) out[i] = rampValue(from + i);
  return out;
}

function pcmOf(file: string): Int16Array {
  const bytes = readFileSync(file);
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset + WAV_HEADER_BYTES, bytes.byteOffset + bytes.length - ((bytes.length - WAV_HEADER_BYTES) % 2)));
}

function assertRamp(pcm: Int16Array, what: string): void {
  for (let i = 0; i < pcm.length; i += 1) {
    if (pcm[i] !== rampInt(i)) assert.fail(`${what}: sample ${i} is ${pcm[i]}, expected ${rampInt(i)} (lost, repeated or shifted samples)`);
  }
}

test('the WAV journal: each sync writes the samples and fixes the header; the file is a valid WAV at every sync and after close', async () => {
  const dir = scratch('meeting-wav');
  const file = join(dir, 'you.wav');
  const writer = await WavJournalWriter.create(file, { sampleRate: 16000, autoSync: false });
  assert.equal(decodeWav(readFileSync(file)).samples.length, 0);
  writer.append(ramp(0, 16000));
  assert.equal(statSync(file).size, WAV_HEADER_BYTES, 'nothing written before the sync');
  await writer.sync();
  assert.equal(writer.durableSamples, 16000);
  let decoded = decodeWav(readFileSync(file));
  assert.equal(decoded.sampleRate, 16000);
  assert.equal(decoded.samples.length, 16000);
  writer.append(ramp(16000, 7));
  writer.append(ramp(16007, 8000));
  await writer.close();
  decoded = decodeWav(readFileSync(file));
  assert.equal(decoded.samples.length, 24007);
  assertRamp(pcmOf(file), 'closed file');
  assert.equal(writer.droppedSamples, 0);
  await assert.rejects(WavJournalWriter.create(file, { sampleRate: 16000 }), /EEXIST/, 'an existing journal is never overwritten');
});

test('the WAV journal drops the oldest pending samples (counted) when the disk does not keep up, so memory stays bounded', async () => {
  const file = join(scratch('meeting-wav-cap'), 'others.wav');
  const writer = await WavJournalWriter.create(file, { sampleRate: 16000, autoSync: false, maxPendingSec: 2 });
  for (let i = 0; i < 100; i += 1) writer.append(new Float32Array(1600)); // 10 s, no sync
  assert.ok(writer.pendingMemoryBytes <= 2 * 16000 * 2, `pending ${writer.pendingMemoryBytes} bytes`);
  assert.equal(writer.droppedSamples, 100 * 1600 - writer.pendingMemoryBytes / 2);
  await writer.close();
});

test('repairWav: sizes from the file length, a torn last sample dropped; a healthy file is left as it is; another file is refused', async () => {
  const dir = scratch('meeting-repair');
  const file = join(dir, 'you.wav');
  const writer = await WavJournalWriter.create(file, { sampleRate: 16000, autoSync: false });
  writer.append(ramp(0, 1000));
  await writer.sync();
  await writer.close();
  assert.deepEqual(await repairWav(file), { samples: 1000, sampleRate: 16000, headerFixed: false, truncatedBytes: 0 });
  // A crash after more samples reached the disk than the last header fix-up says, with half a sample at the end.
  const more = Buffer.alloc(2 * 500 + 1);
  for (let i = 0; i < 500; i += 1) more.writeInt16LE(rampInt(1000 + i), 2 * i);
  appendFileSync(file, more);
  assert.deepEqual(await repairWav(file), { samples: 1500, sampleRate: 16000, headerFixed: true, truncatedBytes: 1 });
  assert.equal(decodeWav(readFileSync(file)).samples.length, 1500);
  assertRamp(pcmOf(file), 'repaired file');
  const other = join(dir, 'other.wav');
  writeFileSync(other, Buffer.from('RIFF....WAVEjunk'));
  await assert.rejects(repairWav(other), /not a meeting track journal/);
  assert.equal(readFileSync(other).toString('latin1'), 'RIFF....WAVEjunk');
});

test('a writer SIGKILLed mid-write: the repaired WAV holds every sample appended up to 2 s before the kill, exactly, none repeated', async () => {
  const dir = scratch('meeting-kill');
  const file = join(dir, 'you.wav');
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./meeting-wav-writer-child.ts', import.meta.url)), file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reports: { at: number; samples: number }[] = [];
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const m = /^appended (\d+)$/.exec(line);
      if (m) reports.push({ at: performance.now(), samples: Number(m[1]) });
    }
  });
  // Kill once 3.5 s of audio were appended (several syncs), at a time unrelated to the sync timer.
  await new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if ((reports.at(-1)?.samples ?? 0) >= 56_000) {
        clearInterval(check);
        resolve();
      }
    }, 5);
  });
  await new Promise((r) => setTimeout(r, 137));
  const killedAt = performance.now();
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const before = [...reports].reverse().find((r) => r.at <= killedAt - 2000)!;
  assert.ok(before, 'the child reported appends 2 s before the kill');
  const result = await repairWav(file);
  assert.ok(result.samples >= before.samples, `recovered ${result.samples} samples; ${before.samples} were appended 2 s before the kill`);
  assert.ok(result.samples <= reports.at(-1)!.samples);
  assertRamp(pcmOf(file), 'file after the kill');
  assert.equal(decodeWav(readFileSync(file)).samples.length, result.samples);
});

const SETTINGS: HistorySettings = { enabled: true, keepDays: 0, maxEntries: 1000 };

test('a meeting left open is recovered at start: closed as recovered, audio repaired, finals by time with speakers, markers; delete removes the audio', async () => {
  const dir = scratch('meeting-history');
  const notices: Notice[] = [];
  const open = (): Promise<HistoryService> => HistoryService.open({
    dir, settings: () => SETTINGS, model: () => ({ id: null, name: 'digits' }), emit: () => undefined, notify: (n) => notices.push(n), log: nullLogger,
  });
  const history = await open();
  const entry = history.newMeetingEntry()!;
  assert.ok(entry);
  mkdirSync(entry.audioDir, { recursive: true });
  // What a meeting had written when it was killed: header, tracks, finals (Others' later one first), a marker, no closed line.
  const lines = [
    entry.header,
    { type: 'track', track: 'you', speaker: 'You', file: 'you.wav', offsetSec: 0.04 },
    { type: 'track', track: 'others', speaker: 'Others', file: 'others.wav', offsetSec: 0.1 },
    { type: 'segment', sessionId: 'm1', segmentId: 0, start: 5, end: 7, text: 'four five', devicesRan: ['CPU'], words: [], speaker: 'Others' },
    { type: 'segment', sessionId: 'm1', segmentId: 1, start: 1, end: 3, text: 'one two', devicesRan: ['CPU'], words: [], speaker: 'You' },
    { type: 'marker', at: 4, text: 'decision' },
  ];
  writeFileSync(entry.file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n{"type":"segm');
  for (const name of ['you.wav', 'others.wav']) {
    const w = await WavJournalWriter.create(join(entry.audioDir, name), { sampleRate: 16000, autoSync: false });
    w.append(ramp(0, 3200));
    await w.sync();
    await w.close();
    appendFileSync(join(entry.audioDir, name), Buffer.alloc(3)); // one more sample and a torn byte past the header's count
  }
  await history.dispose();

  const reopened = await open();
  assert.equal(reopened.recoveredMeetingsAtStart, 1);
  const [summary] = (await reopened.list()).entries;
  assert.equal(summary!.kind, 'meeting');
  assert.equal(summary!.recovered, true);
  const got = await reopened.get(summary!.id);
  assert.deepEqual(got.segments.map((s) => [s.speaker, s.text]), [['You', 'one two'], ['Others', 'four five']]);
  assert.deepEqual(got.markers, [{ at: 4, text: 'decision' }]);
  assert.deepEqual(got.audio?.map((a) => a.file), ['you.wav', 'others.wav']);
  for (const name of ['you.wav', 'others.wav']) assert.equal(decodeWav(readFileSync(join(entry.audioDir, name))).samples.length, 3201);
  await reopened.delete(summary!.id);
  assert.equal(existsSync(entry.audioDir), false, 'the audio goes with the entry');
  assert.equal(existsSync(entry.file), false);
  await reopened.dispose();

});
