// Child process of meeting-full-disk.test.ts, run under a file-size limit (ulimit -f) so the meeting's
// writes fail as on a full disk: a MeetingService with a stand-in decoder (every segment is "word") records
// `seconds` of a microphone that speaks 1 s in every 1.5 s, then stops, and prints one JSON line: the
// notices and meeting states as they came (with the seconds pushed by then) and the summary.
import type { EventMap, EventName, Notice } from '../../../app/ipc/contract.js';
import { DEFAULT_SETTINGS } from '../../../app/ipc/settings.js';
import type { EngineTranscript } from '../../../app/engine-process/protocol.js';
import { FORMAT_VERSION } from '../../../app/main/history/records.js';
import { nullLogger } from '../../../app/main/log.js';
import { MeetingService } from '../../../app/main/meeting/meeting-service.js';
import { join } from 'node:path';

const dir = process.argv[2]!;
const seconds = Number(process.argv[3]);
const id = '20261206-200000-000000';
let pushedSec = 0;
const notices: { pushedSec: number; notice: Notice }[] = [];
const states: { pushedSec: number; state: EventMap['meeting:state'] }[] = [];
const svc = new MeetingService({
  history: {
    newMeetingEntry: () => ({
      header: { type: 'entry', version: FORMAT_VERSION, id, kind: 'meeting', title: 'Meeting', createdAt: new Date().toISOString(), modelId: null, modelName: null, sourcePath: null },
      file: join(dir, `${id}.jsonl`),
      audioDir: join(dir, id),
    }),
    meetingStarted: () => undefined,
    meetingEnded: () => undefined,
  },
  engine: { transcribe: async (pcm: Float32Array) => ({ text: 'word', words: [{ word: 'word', start: 0, end: pcm.length / 16000 }], devicesRan: ['cpu'] }) as unknown as EngineTranscript },
  emit: <E extends EventName>(event: E, data: EventMap[E]) => {
    if (event === 'meeting:state') states.push({ pushedSec, state: data as EventMap['meeting:state'] });
  },
  notify: (notice) => void notices.push({ pushedSec, notice }),
  log: nullLogger,
  settings: () => ({ dictation: { ...DEFAULT_SETTINGS.dictation, pauseMs: 300 }, decoder: 'auto' }),
  systemAudio: null,
  syncIntervalMs: 20,
});
const info = await svc.start('page', { micSampleRate: 16000, systemAudio: false });
const frameSamples = 640;
for (let start = 0; start < seconds * 16000; start += frameSamples) {
  const speaking = (start / 16000) % 1.5 < 1;
  const frame = new Float32Array(frameSamples);
  for (let i = 0; i < frameSamples; i += 1) frame[i] = speaking ? 0.3 * Math.sin((2 * Math.PI * 440 * (start + i)) / 16000) : 0;
  svc.pushMic(info.micStreamId!, frame, 'page', start);
  pushedSec = (start + frameSamples) / 16000;
  await new Promise((r) => setTimeout(r, 4));
}
const summary = await svc.stop(info.meetingId, seconds * 16000);
process.stdout.write(`${JSON.stringify({ notices, states, summary })}\n`);
