// MeetingService when its page goes away, without an engine process (a stand-in decoder) or a sound
// server (no system audio): the meeting records on with the microphone track padded to the clock; only a
// page of the same or no owner can take it over (another is BUSY while the owner is there); a take-over
// gives a new stream id whose frames count from 0, the old stream is refused; the first resumed frame
// closes the gap in a marker; nobody back within the grace time stops and keeps the meeting, the gap noted
// "to the end"; a window closed (stopOwnedBy) still stops it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { EventMap, EventName, MeetingSummary } from '../../../app/ipc/contract.js';
import { DEFAULT_SETTINGS } from '../../../app/ipc/settings.js';
import type { EngineTranscript } from '../../../app/engine-process/protocol.js';
import { FORMAT_VERSION } from '../../../app/main/history/records.js';
import { nullLogger } from '../../../app/main/log.js';
import { MeetingService } from '../../../app/main/meeting/meeting-service.js';
import { decodeWav } from '../../../app/shared/wav.js';
import { scratch } from './tmp.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function service(dir: string, graceMs = 60_000) {
  const events: { event: EventName; data: unknown }[] = [];
  let n = 0;
  const svc = new MeetingService({
    history: {
      newMeetingEntry: () => {
        const id = `20261201-170000-00000${n++}`;
        return {
          header: { type: 'entry', version: FORMAT_VERSION, id, kind: 'meeting', title: 'Meeting', createdAt: new Date().toISOString(), modelId: null, modelName: null, sourcePath: null },
          file: join(dir, `${id}.jsonl`),
          audioDir: join(dir, id),
        };
      },
      meetingStarted: () => undefined,
      meetingEnded: () => undefined,
    },
    engine: { transcribe: async () => ({ text: '', words: [], devicesRan: [] }) as unknown as EngineTranscript },
    emit: <E extends EventName>(event: E, data: EventMap[E]) => void events.push({ event, data }),
    notify: () => undefined,
    log: nullLogger,
    settings: () => ({ dictation: DEFAULT_SETTINGS.dictation, decoder: 'auto' }),
    systemAudio: null,
    syncIntervalMs: 100,
    reattachGraceMs: graceMs,
  });
  return { svc, events };
}

const frame = (): Float32Array => new Float32Array(640).fill(0.01);

test('a page gone and back: recording on, padded to the clock, taken over on a new stream from 0, the gap a marker; another page is BUSY while the owner is there', async () => {
  const dir = scratch('meeting-reattach');
  const { svc, events } = service(dir);
  const info = await svc.start('page-1', { micSampleRate: 16000, systemAudio: false });
  assert.equal(svc.attach(info.meetingId, 'page-1').micStreamId, info.micStreamId, 'the owner itself may attach (nothing changes)');
  assert.throws(() => svc.attach(info.meetingId, 'page-2'), /being recorded by another window/);
  for (let i = 0; i < 25; i += 1) {
    assert.ok(svc.pushMic(info.micStreamId!, frame(), 'page-1', i * 640));
    await sleep(40);
  }
  svc.detachOwner('page-1');
  assert.equal(svc.running, true, 'still recording');
  const away = svc.current()!;
  assert.equal(away.micDetached, true);
  assert.equal(away.info.sources.find((s) => s.track === 'you')!.state, 'interrupted');
  assert.equal(svc.pushMic(info.micStreamId!, frame(), 'page-1', 25 * 640), false, 'frames of the page that is gone are refused');
  await sleep(1500);
  const taken = svc.attach(info.meetingId, 'page-2');
  assert.notEqual(taken.micStreamId, info.micStreamId);
  for (let i = 0; i < 25; i += 1) {
    assert.ok(svc.pushMic(taken.micStreamId!, frame(), 'page-2', i * 640));
    await sleep(40);
  }
  assert.equal(svc.current()!.info.sources.find((s) => s.track === 'you')!.state, 'recording');
  const summary: MeetingSummary = await svc.stop(info.meetingId, 25 * 640);
  const you = summary.tracks.find((t) => t.track === 'you')!;
  assert.equal(you.samplesMissing + you.samplesRepeated, 0, 'the new stream\'s numbering from 0 is neither loss nor repeat');
  assert.ok(you.samplesInterrupted / 16000 > 1.2 && you.samplesInterrupted / 16000 < 2.0, `${you.samplesInterrupted / 16000} s of silence for ~1.5 s away`);
  assert.equal(you.samples, 50 * 640 + you.samplesInterrupted);
  const wav = decodeWav(readFileSync(join(dir, summary.entryId, 'you.wav'))).samples;
  assert.equal(wav.length, you.samples);
  assert.equal(wav[25 * 640 + 100], 0, 'silence right after the audio before');
  assert.ok(wav[25 * 640 + you.samplesInterrupted + 100]! > 0, 'the resumed audio right after the gap');
  const markers = events.filter((e) => e.event === 'meeting:marker').map((e) => e.data as { at: number; text: string; kind: string });
  assert.equal(markers.length, 1);
  assert.equal(markers[0]!.kind, 'gap');
  assert.match(markers[0]!.text, /^The microphone was interrupted from 00:0\d to 00:0\d/);
  const journal = readFileSync(join(dir, `${summary.entryId}.jsonl`), 'utf8');
  assert.match(journal, /"type":"marker".*The microphone was interrupted/, 'the gap is in the History entry');
});

test('nobody takes it over within the grace time: the meeting is stopped and kept, its gap noted to the end; a window closed stops it at once', async () => {
  const dir = scratch('meeting-reattach-grace');
  const { svc, events } = service(dir, 600);
  const info = await svc.start('page-1', { micSampleRate: 16000, systemAudio: false });
  svc.pushMic(info.micStreamId!, frame(), 'page-1', 0);
  svc.detachOwner('page-1');
  await sleep(1200);
  assert.equal(svc.running, false);
  assert.equal(svc.current(), null);
  const marker = events.filter((e) => e.event === 'meeting:marker').map((e) => (e.data as { text: string }).text);
  assert.match(marker[0] ?? '', /to the end of the meeting/);
  const stopped = events.filter((e) => e.event === 'meeting:state').map((e) => e.data as { state: string }).at(-1);
  assert.equal(stopped?.state, 'stopped');

  const again = await svc.start('page-3', { micSampleRate: 16000, systemAudio: false });
  await svc.stopOwnedBy('page-3');
  assert.equal(svc.running, false, `meeting ${again.meetingId} stopped with its window`);
});
