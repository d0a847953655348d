// Live dictation for the WER bench: the app's own service graph (settings,
// engine host with the engine in its own process, session manager, segmenter,
// early finals, partial cadence) in this process acting as main, fed 20 ms
// frames of a WAV as the AudioWorklet sends them, paced at `speed` × real time.
// Nothing of the session is replaced: what comes out is what the app shows.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DictationSettings, SessionSummary } from '../../app/ipc/contract.js';
import { createServices, type Services } from '../../app/main/services.js';
import type { FinalCut } from './wer-live-plan.js';

const RATE = 16_000;
/** 20 ms, the capture worklet's frame. */
const FRAME = 320;

export interface LiveDictation {
  finals: FinalCut[];
  /** The session's text: its finals joined. */
  text: string;
  /** Partial transcripts the session emitted (it emits one only when the text changed). */
  partialEvents: number;
  /** Open-segment decodes that ran (partials and early finals), and those skipped because the engine was busy. */
  partialDecodes: number;
  partialsSkipped: number;
  /** Mean time from a segment's close to its final (ms). */
  meanFinalMs: number | null;
  audioSec: number;
  wallSec: number;
  /** Frames and samples the session counted equal those sent, with no gaps. */
  framesIntact: boolean;
}

/** The app's services with `modelPath` loaded in the engine process; dispose with closeApp. */
export async function openApp(modelPath: string, threads: number | undefined): Promise<{ services: Services; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'parakeet-wer-live-'));
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ version: 1, settings: { threads: threads ?? 0 } }));
  // Frames may be paced faster than real time (`speed`): the sessions' real-time bound is lifted.
  const services = await createServices({
    userDataDir: dir, mode: 'web', engineMode: 'process', modelPath, modelEndpoint: 'https://127.0.0.1:9', dictationRealTimeSlackSec: Number.POSITIVE_INFINITY,
  });
  await services.ready;
  if (!services.engine.loadedModel) {
    await services.dispose();
    throw new Error(`the engine did not load ${modelPath}`);
  }
  return { services, dir };
}

export async function closeApp(app: { services: Services; dir: string }): Promise<void> {
  await app.services.dispose();
  rmSync(app.dir, { recursive: true, force: true });
}

/** One dictation session over `pcm` (16 kHz) with `settings`, frames sent at `speed` × real time. */
export async function dictate(services: Services, pcm: Float32Array, settings: DictationSettings, speed: number): Promise<LiveDictation> {
  await services.settings.set({ dictation: settings });
  let partialEvents = 0;
  let sessionId = '';
  const off = services.bus.on('dictation:transcript', (t) => {
    if (t.kind === 'partial' && t.sessionId === sessionId) partialEvents += 1;
  });
  const t0 = performance.now();
  let summary: SessionSummary;
  let frames = 0;
  try {
    sessionId = services.sessions.start({ sampleRate: RATE }, 'bench').sessionId;
    for (let at = 0; at < pcm.length; at += FRAME) {
      // A copy, as a structured-cloned frame from the renderer would be.
      services.sessions.pushAudio(sessionId, pcm.slice(at, Math.min(pcm.length, at + FRAME)), 'bench', at);
      frames += 1;
      const wait = t0 + (Math.min(pcm.length, at + FRAME) / RATE) * 1000 / speed - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else if (frames % 50 === 0) await new Promise((r) => setImmediate(r)); // behind: still let replies in
    }
    summary = await services.sessions.stop(sessionId, 'bench', pcm.length);
  } finally {
    off();
  }
  const l = summary.latency;
  return {
    finals: summary.segments.map((f) => {
      if (f.startSample === undefined || f.endSample === undefined) throw new Error(`final ${f.segmentId} came without its sample cut`);
      return { text: f.text, startSample: f.startSample, endSample: f.endSample };
    }),
    text: summary.text,
    partialEvents,
    partialDecodes: l.partialDecodes ?? 0,
    partialsSkipped: l.partialsSkipped ?? 0,
    meanFinalMs: l.meanFinalMs,
    audioSec: summary.audioSeconds,
    wallSec: (performance.now() - t0) / 1000,
    framesIntact: l.framesReceived === frames && l.samplesReceived === pcm.length && l.sampleGaps === 0,
  };
}

/** Each final's cut decoded again, offline, by the same engine: the texts, in order. */
export async function decodeCutsOffline(services: Services, pcm: Float32Array, finals: readonly FinalCut[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of finals) {
    if (f.endSample <= f.startSample) {
      out.push('');
      continue;
    }
    const r = await services.engine.transcribe(pcm.slice(f.startSample, f.endSample), { sampleRate: RATE }, { priority: 'final' });
    out.push(r?.text.trim() ?? '');
  }
  return out;
}

/** The whole file in one encoder pass (one window), by the app's engine. */
export async function onePass(services: Services, pcm: Float32Array): Promise<{ text: string; ms: number }> {
  const r = await services.engine.transcribe(pcm, { sampleRate: RATE, maxWindowSec: Math.ceil(pcm.length / RATE) + 1 }, { priority: 'final' });
  return { text: r?.text ?? '', ms: r?.timings.totalMs ?? 0 };
}
