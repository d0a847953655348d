// Meeting benchmark: a long two-track meeting through the real MeetingService
// (tracks, WAV journals in a History folder, the engine host with its engine
// process and lane), fed faster than real time: the microphone through
// pushMic with sample positions, the system audio through the same capture
// interface parec uses (a feeder in place of the child process). Audio is
// speech-like phrases and pauses (test/unit/app/signals.ts), generated per
// minute so the script itself holds no hour of audio. The model: the
// 110M-shape Q8_0 random model (test/bench/models.ts; real compute, random
// text) or --model (the digits model for words).
//
//   npm run bench:meeting -- [--minutes 60] [--speed 8] [--model m.gguf | --streaming eou|nemotron-en|nemotron-3.5]
//                            [--threads 1] [--out file.json]
//   npm run bench:meeting -- --summarize file.json   (the engine-RSS envelope of an earlier run's output)
// --streaming: a random model of that cache-aware family at its real size (Q8_0): both tracks then stream
// their segments (the app's path for streaming models) instead of decoding them whole.
//
// Prints one JSON object: RSS of this process (acting as main) and of the
// engine process, growth after the first meeting minute; per track samples
// fed, on the track, in the WAV, missing/repeated/dropped; finals; transcript
// lag per track (wall ms from a segment's last sample arriving to its final:
// p50/p95/max). Fed at N× real time the engine has N× less time per segment,
// so the lag at real time is at most the accelerated run's.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { EngineHost } from '../../app/main/engine/engine-host.js';
import { HistoryService } from '../../app/main/history/history-service.js';
import { nullLogger } from '../../app/main/log.js';
import { MeetingService } from '../../app/main/meeting/meeting-service.js';
import type { SystemAudioHandlers, SystemAudioStarter } from '../../app/main/meeting/system-audio.js';
import { WAV_HEADER_BYTES } from '../../app/main/meeting/wav-journal.js';
import { DEFAULT_SETTINGS } from '../../app/ipc/settings.js';
import { RATE, meetingMinute } from '../support/audio/signals.js';
import { benchModelFile, cachedBenchModel } from './models.js';
import { rssEnvelope } from './rss-envelope.js';
import { STREAMING_FAMILIES, type StreamingFamily } from '../support/model/streaming.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    speed: { type: 'string', default: '8' },
    model: { type: 'string' },
    streaming: { type: 'string' },
    threads: { type: 'string', default: '1' },
    out: { type: 'string' },
    summarize: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
const speed = Number(values.speed);
const FRAME = 640; // 40 ms

function rssOf(pid: number | null): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const family = values.streaming as StreamingFamily | undefined;
  if (family !== undefined && !STREAMING_FAMILIES.includes(family)) throw new Error(`--streaming must be one of ${STREAMING_FAMILIES.join(', ')}`);
  const modelPath = values.model ??
    (family ? cachedBenchModel(`random-stream-${family}-q8_0`, { preset: family === 'eou' ? 'shapeEou120m' : 'shape600m', family, weightType: 'q8_0' }) : benchModelFile('110m', 'q8_0'));
  const dir = mkdtempSync(join(tmpdir(), 'parakeet-bench-meeting-'));
  const engine = new EngineHost({ mode: 'process', log: nullLogger });
  await engine.start();
  await engine.loadModel(modelPath, { threads: Number(values.threads) });
  const history = await HistoryService.open({
    dir: join(dir, 'history'), settings: () => ({ enabled: true, keepDays: 0, maxEntries: 1000 }), model: () => ({ id: null, name: 'bench' }),
    emit: () => undefined, notify: () => undefined, log: nullLogger,
  });
  let others: SystemAudioHandlers | null = null;
  const feeder: SystemAudioStarter = (_rate, handlers) => {
    others = handlers;
    return { description: 'bench feeder', stop: async () => handlers.onEnd(null) };
  };
  // Counted, not kept: keeping every final (≈1–2 KB with its words) made this process's heap grow ≈3.5 MB
  // per meeting hour, which the report then showed as the main process's growth.
  let finals = 0;
  const meetings = new MeetingService({
    stream: () => (engine.loadedModel?.streaming ? { decoder: engine, options: {} } : undefined),
    history, engine, log: nullLogger, notify: (n) => process.stderr.write(`notice: ${n.message}\n`),
    emit: (event) => {
      if (event === 'meeting:transcript') finals += 1;
    },
    settings: () => ({ dictation: DEFAULT_SETTINGS.dictation, decoder: 'auto' }),
    systemAudio: feeder,
  });
  const info = await meetings.start('bench', { micSampleRate: RATE });
  const stream = info.micStreamId!;
  const fed = { you: 0, others: 0 };
  const rss: { meetingSec: number; main: number; heap: number; engine: number | null }[] = [];
  const enginePid = engine.status().pid ?? null;
  const t0 = performance.now();
  for (let minute = 0; minute < minutes; minute += 1) {
    const you = meetingMinute(1, minute);
    const sys = meetingMinute(2, minute);
    for (let at = 0; at < you.length; at += FRAME) {
      meetings.pushMic(stream, you.slice(at, at + FRAME), 'bench', fed.you);
      fed.you += Math.min(FRAME, you.length - at);
      others!.onFrame(sys.slice(at, at + FRAME));
      fed.others += Math.min(FRAME, sys.length - at);
      const due = t0 + ((fed.you / RATE) * 1000) / speed;
      const wait = due - performance.now();
      // Always yield: a feed behind its schedule must still let the decodes' replies and the WAV syncs run.
      await new Promise((r) => (wait > 0 ? setTimeout(r, wait) : setImmediate(r)));
      if ((fed.you / RATE) % 10 === 0) {
        // After a full GC (npm script: --expose-gc): what is held, not what V8 has not collected yet.
        (globalThis as { gc?: () => void }).gc?.();
        const m = process.memoryUsage();
        rss.push({ meetingSec: fed.you / RATE, main: m.rss, heap: m.heapUsed + m.arrayBuffers, engine: rssOf(enginePid) });
      }
    }
    process.stderr.write(`minute ${minute + 1}/${minutes}: ${finals} finals, wall ${((performance.now() - t0) / 1000).toFixed(0)} s, rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB\n`);
  }
  const summary = await meetings.stop(info.meetingId, fed.you);
  const wallSec = (performance.now() - t0) / 1000;
  const audioDir = history.audioDirOf(info.entryId);
  const wavSamples = (name: string): number => (statSync(join(audioDir, name)).size - WAV_HEADER_BYTES) / 2;
  const afterFirst = rss.filter((r) => r.meetingSec >= 60);
  // Growth after the first minute: the largest sample after it minus the first one after it.
  const growth = (pick: (r: (typeof rss)[number]) => number | null): number | null => {
    const xs = afterFirst.map(pick).filter((x): x is number => x !== null);
    return xs.length ? Math.max(...xs) - xs[0]! : null;
  };
  const out = {
    bench: 'meeting',
    model: modelPath.split('/').at(-1),
    minutes,
    speed,
    threads: Number(values.threads),
    wallSec: Math.round(wallSec),
    rss: {
      mainStartMB: Math.round((rss[0]?.main ?? 0) / 1e6),
      mainGrowthAfterFirstMinuteMB: growth((r) => r.main) === null ? null : Math.round(growth((r) => r.main)! / 1e5) / 10,
      mainHeapGrowthAfterFirstMinuteMB: Math.round(growth((r) => r.heap)! / 1e5) / 10,
      engineGrowthAfterFirstMinuteMB: growth((r) => r.engine) === null ? null : Math.round(growth((r) => r.engine)! / 1e5) / 10,
      /** Issue 39's figure: floor and peak of every 10-minute window from minute 10 on (all 10 s samples). */
      engineEnvelopeAfterMinute10: rssEnvelope(
        rss.filter((r) => r.engine !== null).map((r) => [r.meetingSec / 60, r.engine! / 1e6] as const), 10, 10),
      gc: typeof (globalThis as { gc?: unknown }).gc === 'function',
      samples: rss.length,
      /** Per meeting minute: main RSS / heap+buffers after GC / engine RSS (MB). */
      perMinute: rss.filter((r) => r.meetingSec % 60 === 0).map((r) => [r.meetingSec / 60, Math.round(r.main / 1e6), Math.round(r.heap / 1e6), r.engine === null ? null : Math.round(r.engine / 1e6)]),
    },
    tracks: summary.tracks.map((t) => {
      const sent = t.track === 'you' ? fed.you : fed.others;
      const inWav = wavSamples(`${t.track}.wav`);
      return {
        track: t.track, fed: sent, onTrack: t.samples, inWav,
        lost: Math.max(0, sent - inWav), duplicated: Math.max(0, inWav - sent),
        missing: t.samplesMissing, repeated: t.samplesRepeated, journalDropped: t.journalDropped, segments: t.segments,
      };
    }),
    finals: summary.finals,
    finalLagWallMs: Object.fromEntries(summary.tracks.map((t) => [t.track, t.finalLagMs])),
    finalLagP95Ms: Math.max(...summary.tracks.map((t) => t.finalLagMs?.p95 ?? 0)),
    // The same finals timed from the close decision (the engine's share) and from the end of speech (what a
    // person waits: the pause setting, pauseMs − tailMs after the segment's end sample, plus the engine's share).
    closeToFinalWallMs: Object.fromEntries(summary.tracks.map((t) => [t.track, t.closeToFinalMs ?? null])),
    speechEndToFinalWallMs: Object.fromEntries(summary.tracks.map((t) => [t.track, t.speechEndToFinalMs ?? null])),
    pauseMs: DEFAULT_SETTINGS.dictation.pauseMs,
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  if (values.out) writeFileSync(values.out, `${JSON.stringify(out, null, 2)}\n`);
  await history.dispose();
  await engine.dispose();
  rmSync(dir, { recursive: true, force: true });
}

/** --summarize: an earlier output's envelope, from its per-minute samples (runs before the envelope existed). */
function summarize(file: string): void {
  const run = JSON.parse(readFileSync(file, 'utf8')) as { minutes: number; speed: number; rss: { perMinute: [number, number, number, number | null][] } };
  const samples = run.rss.perMinute.filter((r) => r[3] !== null).map((r) => [r[0], r[3]!] as const);
  const envelope = rssEnvelope(samples, 10, 10);
  process.stdout.write(`${JSON.stringify({ file, minutes: run.minutes, speed: run.speed, samples: 'one per minute', engineEnvelopeAfterMinute10: envelope }, null, 2)}\n`);
}

if (values.summarize) summarize(values.summarize);
else await main();
