// A file job's record of how its speech was found (FileSpeechCut): the engine says what planned the windows
// (Silero, named, or the energy planner) and the job adds how much of the file the model decoded, so the Files
// result, History and the JSON export can say "Silero VAD v6.2 (F32): 2.0 s decoded, 1.0 s of silence skipped".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelInfo } from '../../../native/index.js';
import type { EngineFileHandle, EngineTranscript } from '../../../app/engine-process/protocol.js';
import { runFileJob, type FileJobDeps } from '../../../app/main/engine/file-job.js';
import { nullLogger } from '../../../app/main/log.js';

const RATE = 16_000;
// The fields runFileJob reads; the rest of a ModelInfo plays no part here.
const MODEL = {
  sampleRate: RATE, hopLength: 160, subsamplingFactor: 8, defaultDecoder: 'ctc', device: { device: { name: 'CPU' } },
} as unknown as ModelInfo;

function windowResult(text: string): EngineTranscript {
  return {
    text, words: [], tokens: [], durationSec: 1, decoder: 'ctc', device: 'CPU', devicesRan: ['CPU'], windows: [], threadsUsed: 1,
    timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, phrasesFired: [], phrasesRejected: [],
  };
}

function deps(opened: EngineFileHandle): FileJobDeps {
  const request = (async (r: { op: string; index?: number }) => {
    if (r.op === 'fileOpen') return opened;
    if (r.op === 'fileWindow') return windowResult(`window ${r.index}`);
    return null;
  }) as FileJobDeps['request'];
  return { log: nullLogger, request, inLane: (work) => work(), reloadIfIdle: async () => {}, windowThreads: () => undefined, ran: () => {} };
}

test('a file cut by Silero records the model and the seconds decoded (the windows\' total, not the file\'s length)', async () => {
  const opened: EngineFileHandle = {
    handle: 1, sampleRate: RATE, samples: 3 * RATE,
    windows: [{ begin: 0, end: RATE / 2 }, { begin: 2 * RATE, end: 3 * RATE }],
    speechCut: { detector: 'silero', model: 'Silero VAD v6.2 (F32)' },
  };
  const result = await runFileJob(deps(opened), MODEL, '/audio.wav', {}, {});
  assert.deepEqual(result.speechCut, { detector: 'silero', model: 'Silero VAD v6.2 (F32)', decodedSec: 1.5 });
  assert.equal(result.text, 'window 0 window 1');
  assert.equal(result.durationSec, 3);
});

test('no speech found: nothing decoded; the energy planner: the whole file', async () => {
  const silent = await runFileJob(deps({
    handle: 1, sampleRate: RATE, samples: 2 * RATE, windows: [], speechCut: { detector: 'silero', model: 'Silero VAD v5 (F16)' },
  }), MODEL, '/quiet.wav', {}, {});
  assert.deepEqual(silent.speechCut, { detector: 'silero', model: 'Silero VAD v5 (F16)', decodedSec: 0 });
  assert.equal(silent.text, '');
  // A whole transcript still: the CLI lists the rejected vocabulary phrases from it (it once threw "not iterable").
  assert.deepEqual([silent.words, silent.tokens, silent.phrasesFired, silent.phrasesRejected], [[], [], [], []]);
  const plain = await runFileJob(deps({
    handle: 2, sampleRate: RATE, samples: 2 * RATE, windows: [{ begin: 0, end: RATE }, { begin: RATE, end: 2 * RATE }], speechCut: { detector: 'energy' },
  }), MODEL, '/talk.wav', {}, {});
  assert.deepEqual(plain.speechCut, { detector: 'energy', decodedSec: 2 });
});
