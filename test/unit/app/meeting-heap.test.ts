// A long meeting's main-process memory stays flat: the real MeetingService and HistoryService (WAV
// journals, the entry journal) with a stand-in decoder that answers every segment with words at once, two
// tracks of phrases and pauses fed far faster than real time. After a full GC the heap
// at the end is within a bound of where it was after the first minutes, whatever the length: nothing is
// kept per final or per segment. (The bench's own growth of ≈3.5 MB/h was its harness: it kept every
// final it received only to count them.)
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DEFAULT_SETTINGS } from '../../../app/ipc/settings.js';
import type { EngineTranscript } from '../../../app/engine-process/protocol.js';
import { HistoryService } from '../../../app/main/history/history-service.js';
import { nullLogger } from '../../../app/main/log.js';
import { MeetingService } from '../../../app/main/meeting/meeting-service.js';
import type { SystemAudioHandlers } from '../../../app/main/meeting/system-audio.js';
import { RATE, meetingMinute } from '../../support/audio/signals.js';
import { scratch } from './tmp.js';

// A full GC before each reading, without asking the runner for --expose-gc.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MINUTES = Number(process.env.MEETING_HEAP_MINUTES ?? 40);

test(`a ${MINUTES}-minute meeting holds no more memory at its end than after its first minutes`, { timeout: 600_000 }, async () => {
  const dir = scratch('meeting-heap');
  const history = await HistoryService.open({
    dir: join(dir, 'history'), settings: () => ({ enabled: true, keepDays: 0, maxEntries: 1000 }), model: () => ({ id: null, name: 'test' }),
    emit: () => undefined, notify: () => undefined, log: nullLogger,
  });
  let others: SystemAudioHandlers | null = null;
  let finals = 0;
  const words = 'one two three four five six seven eight'.split(' ');
  const meetings = new MeetingService({
    history,
    engine: {
      transcribe: async (pcm: Float32Array) => ({
        text: words.join(' '), devicesRan: ['CPU'],
        words: words.map((word, i) => ({ word, start: (i * pcm.length) / RATE / words.length, end: ((i + 1) * pcm.length) / RATE / words.length })),
      }) as unknown as EngineTranscript,
    },
    emit: (event) => {
      if (event === 'meeting:transcript') finals += 1;
    },
    notify: () => undefined,
    log: nullLogger,
    settings: () => ({ dictation: DEFAULT_SETTINGS.dictation, decoder: 'auto' }),
    systemAudio: (_rate, handlers) => {
      others = handlers;
      return { description: 'test feeder', stop: async () => handlers.onEnd(null) };
    },
  });
  const info = await meetings.start('test', { micSampleRate: RATE });
  const heap: number[] = [];
  let fed = 0;
  for (let minute = 0; minute < MINUTES; minute += 1) {
    const you = meetingMinute(1, minute);
    const sys = meetingMinute(2, minute);
    for (let at = 0; at < you.length; at += 640) {
      meetings.pushMic(info.micStreamId!, you.subarray(at, at + 640), 'test', fed);
      others!.onFrame(sys.slice(at, at + 640));
      fed += 640;
      if (at % (640 * 25) === 0) await tick(); // decodes, journal writes and WAV syncs run between frames
    }
    await new Promise((r) => setTimeout(r, 30));
    gc();
    const m = process.memoryUsage();
    heap.push(m.heapUsed);
  }
  await meetings.stop(info.meetingId, fed);
  await history.dispose();
  // The lowest of a few minutes: a GC right after a burst of decodes can still see their buffers in flight.
  const floor = (xs: number[]): number => Math.min(...xs);
  const growth = floor(heap.slice(-5)) - floor(heap.slice(4, 9));
  assert.ok(finals > MINUTES * 20, `${finals} finals`);
  // Nothing kept: within ±0.3 MB of GC noise; a final's ~1.5 KB kept each would be ≥ 1.5 MB here.
  assert.ok(growth < 750_000, `the heap grew ${(growth / 1e6).toFixed(2)} MB from minute 5 to ${MINUTES} (${finals} finals): ${heap.map((h) => (h / 1e6).toFixed(1)).join(' ')}`);
});
