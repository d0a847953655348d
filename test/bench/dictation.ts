// Live-dictation benchmark: the real services in this process (acting as
// main), the engine in its own process, a 110M-shape Q8_0 model (random
// weights, real compute), speech-like phrases and pauses fed at real time in
// 20 ms frames like the AudioWorklet. Prints one JSON object:
//   per-segment first partial after speech onset and final after the closing pause (end to end, wall ms),
//   the session's own LatencyReport (incl. main event-loop delay), and frame/sample accounting.
//
//   npm run bench:dictation -- [--seconds 60] [--model m.gguf] [--threads N] [--speed 1] [--inline]
//   (10-minute no-drop run: --seconds 600)
//   --concurrent-file [--quick]: the same script twice, idle and then while a 5-minute file is transcribed
//   (again and again) beside it; the output ends with one line
//   `concurrent: first partial p95 X ms (idle Y ms), final p95 Z ms`. --quick: 30 s passes, a 2-minute file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { encodeWav16 } from '../../app/shared/wav.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { LatencyReport, TranscriptEvent } from '../../app/ipc/contract.js';
import { createServices } from '../../app/main/services.js';
import { benchModel } from './bench-model.js';
import { RATE, meetingLike, quiet, speechLike } from '../support/audio/signals.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    model: { type: 'string' },
    threads: { type: 'string', default: '0' },
    speed: { type: 'string', default: '1' },
    inline: { type: 'boolean', default: false },
    'concurrent-file': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
  },
});
const concurrent = values['concurrent-file'];
const seconds = concurrent && values.quick ? 30 : Number(values.seconds);
const speed = Number(values.speed);

function stats(xs: number[]): { n: number; mean: number | null; p50: number | null; p95: number | null; max: number | null } {
  if (!xs.length) return { n: 0, mean: null, p50: null, p95: null, max: null };
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { n: s.length, mean: Math.round(s.reduce((a, b) => a + b, 0) / s.length), p50: Math.round(at(0.5)), p95: Math.round(at(0.95)), max: Math.round(s.at(-1)!) };
}

async function main(): Promise<void> {
  const modelPath = values.model ?? benchModel();

  // The script: phrases of 1.5–4 s, pauses of 0.8–1.4 s (pauses ≥ pauseMs close a segment).
  const pieces: { audio: Float32Array; speech: boolean }[] = [{ audio: quiet(1, 1), speech: false }];
  let total = pieces[0]!.audio.length;
  for (let k = 0; total < seconds * RATE; k += 1) {
    const phrase = speechLike(1.5 + ((k * 7) % 26) / 10, 100 + k);
    const pause = quiet(0.8 + ((k * 3) % 7) / 10, 200 + k);
    pieces.push({ audio: phrase, speech: true }, { audio: pause, speech: false });
    total += phrase.length + pause.length;
  }
  const phrases: { onset: number; end: number }[] = [];
  let cursor = 0;
  for (const p of pieces) {
    if (p.speech) phrases.push({ onset: cursor, end: cursor + p.audio.length });
    cursor += p.audio.length;
  }

  const userDataDir = mkdtempSync(join(tmpdir(), 'parakeet-bench-'));
  writeFileSync(join(userDataDir, 'settings.json'), JSON.stringify({ version: 1, settings: { threads: Number(values.threads) } }));
  const services = await createServices({
    userDataDir,
    mode: 'web',
    engineMode: values.inline ? 'inline' : 'process',
    modelPath,
    modelEndpoint: 'https://127.0.0.1:9',
    // Played faster than real time on purpose: the sessions' real-time bound is lifted.
    dictationRealTimeSlackSec: speed > 1 ? Number.POSITIVE_INFINITY : undefined,
  });
  try {
    await services.ready;
    const model = services.engine.loadedModel;
    if (!model) throw new Error('the model did not load');
    if (!concurrent) {
      const out = await pass(services, modelPath, pieces, phrases, total);
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return;
    }
    // The file: phrases and pauses like a meeting, 5 minutes (2 with --quick), 16-bit WAV.
    const fileSec = values.quick ? 120 : 300;
    const meeting = meetingLike(fileSec);
    const wav = join(userDataDir, 'meeting.wav');
    writeFileSync(wav, encodeWav16(meeting, RATE));
    const idle = await pass(services, modelPath, pieces, phrases, total);
    let running = true;
    let filesDone = 0;
    let fileWindowsSec = 0;
    const fileLoop = (async () => {
      while (running) {
        const t = await services.files.transcribe(wav);
        if (!running) break;
        filesDone += 1;
        fileWindowsSec += t.elapsedMs / 1000;
      }
    })().catch((error: unknown) => {
      if (running) throw error;
    });
    // Let the file job get going before the dictation starts.
    await new Promise((r) => setTimeout(r, 500));
    const busy = await pass(services, modelPath, pieces, phrases, total);
    running = false;
    for (const job of services.files.jobIds()) services.files.cancel(job);
    await fileLoop;
    const out = { idle, concurrentFile: { ...busy, file: { seconds: fileSec, finishedDuringPass: filesDone, secondsPerFile: filesDone ? fileWindowsSec / filesDone : null } } };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    const fmt = (x: number | null): string => (x === null ? 'n/a' : String(x));
    process.stdout.write(
      `concurrent: first partial p95 ${fmt(busy.firstPartialAfterOnsetMs.p95)} ms (idle ${fmt(idle.firstPartialAfterOnsetMs.p95)} ms), ` +
        `final p95 ${fmt(busy.finalAfterPauseMs.p95)} ms\n`,
    );
  } finally {
    await services.dispose();
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

type Services = Awaited<ReturnType<typeof createServices>>;

/** One real-time pass of the script through a dictation session: latencies per segment and the session report. */
async function pass(
  services: Services,
  modelPath: string,
  pieces: { audio: Float32Array; speech: boolean }[],
  phrases: { onset: number; end: number }[],
  total: number,
) {
  const model = services.engine.loadedModel!;
  {
    const dictation = services.settings.get().dictation;

    // Wall time at which each sample index was sent (per frame).
    const sentAt: { end: number; at: number }[] = [];
    const timeOfSample = (s: number): number | null => sentAt.find((x) => x.end > s)?.at ?? null;
    const events: { at: number; t: TranscriptEvent }[] = [];
    const off = services.bus.on('dictation:transcript', (t) => events.push({ at: performance.now(), t }));
    let report: LatencyReport | null = null;
    const offLatency = services.bus.on('dictation:latency', (l) => (report = l));

    const { sessionId } = services.sessions.start({ sampleRate: RATE }, 'bench');
    const frame = 320; // 20 ms
    const t0 = performance.now();
    let position = 0;
    let sentFrames = 0;
    for (const p of pieces) {
      for (let i = 0; i < p.audio.length; i += frame) {
        const f = p.audio.slice(i, i + frame);
        services.sessions.pushAudio(sessionId, f, 'bench', position);
        position += f.length;
        sentFrames += 1;
        sentAt.push({ end: position, at: performance.now() });
        const due = t0 + ((position / RATE) * 1000) / speed;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }
    const summary = await services.sessions.stop(sessionId, 'bench');
    report = summary.latency;

    // Per segment, end to end: the phrase's onset audio sent → first partial; the closing pause sent → final.
    const firstPartial: number[] = [];
    const final: number[] = [];
    for (const seg of summary.segments) {
      const phrase = phrases.find((p) => p.onset < seg.endSample! && p.end > seg.startSample!);
      if (!phrase) continue;
      const onsetAt = timeOfSample(Math.max(phrase.onset, seg.startSample!));
      const partial = events.find((e) => e.t.kind === 'partial' && e.t.segmentId === seg.segmentId);
      if (onsetAt !== null && partial) firstPartial.push(partial.at - onsetAt);
      const closeSample = phrase.end + Math.round((dictation.pauseMs * RATE) / 1000);
      const closedAt = timeOfSample(closeSample);
      const fin = events.find((e) => e.t.kind === 'final' && e.t.segmentId === seg.segmentId);
      if (closedAt !== null && fin && seg.endSample !== total) final.push(fin.at - closedAt);
    }
    off();
    offLatency();
    const r = report as LatencyReport;
    return {
      model: { path: modelPath, name: model.name, weightType: Object.keys(model.tensorTypes).join('+'), threads: model.threads, device: model.device.device.name },
      engineMode: services.engine.mode,
      audioSeconds: summary.audioSeconds,
      speed,
      settings: dictation,
      segments: summary.segments.length,
      phrases: phrases.length,
      firstPartialAfterOnsetMs: stats(firstPartial),
      finalAfterPauseMs: stats(final),
      targets: { firstPartialMs: 1000, finalMs: 500, eventLoopP99Ms: 50, sampleGaps: 0 },
      session: r,
      framesSent: sentFrames,
      samplesSent: position,
      framesReceivedMatch: r.framesReceived === sentFrames && r.samplesReceived === position,
    };
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
