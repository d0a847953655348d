// `parakeet transcribe --vad`: a file cut as the app's Files view cuts it (the engine process's fileOpen with a
// trained VAD): Silero over the whole clip, its speech segments with the app's default settings (threshold,
// shortest speech, pause, pad, the tail kept after speech, edge trim), windows planned over the segments only
// (planSpeechWindows: silent stretches never reach the decoder, long speech cut at its quietest hop), each window
// decoded alone and moved into the clip's timeline. The CLI holds the clip in memory, so no planning pass.
import type { Model, TranscribeOptions, TranscribeResult, VadModel } from '../../native/index.js';
import type { FileSpeechCut } from '../ipc/contract.js';
import { DEFAULT_DICTATION } from '../ipc/settings.js';
import { hopEnergiesOf } from '../engine-process/hop-energies.js';
import { FILE_WINDOW_SEC, joinWindows } from '../main/engine/file-job.js';
import { offsetTranscript } from '../engine-process/offset-transcript.js';
import { planSpeechWindows } from '../engine-process/speech-windows.js';
import { windowNonSpeech } from '../engine-process/window-non-speech.js';
import { trimSegmentEdges } from '../shared/silence-guards.js';
import { SPEECH_TAIL_MS, speechSegments, type VadSegmentOptions } from '../shared/vad-segments.js';

/** Silero's rate: the speech models the CLI loads run at it too (a model at another rate is refused). */
const VAD_RATE = 16000;

export interface SpeechOnlyResult {
  result: TranscribeResult;
  speechCut: FileSpeechCut;
}

/** The app's file-job VAD settings (Settings' defaults). */
function appVadOptions(): VadSegmentOptions & { trimMs: number } {
  const d = DEFAULT_DICTATION;
  return {
    threshold: d.vadSpeechThreshold, minSpeechMs: d.vadMinSpeechMs, minSilenceMs: d.vadMinSilenceMs, padMs: d.vadSpeechPadMs,
    tailMs: SPEECH_TAIL_MS, trimMs: d.vadEdgeTrimMs,
  };
}

export async function transcribeSpeechOnly(
  model: Model, vad: VadModel, samples: Float32Array, options: Omit<TranscribeOptions, 'sampleRate' | 'captureMel' | 'captureEncoder'>,
): Promise<SpeechOnlyResult> {
  const info = model.info();
  if (info.sampleRate !== VAD_RATE) {
    throw new Error(`--vad cuts at ${VAD_RATE / 1000} kHz (Silero's rate); ${info.name || 'this model'} runs at ${info.sampleRate} Hz`);
  }
  const stream = vad.createStream(VAD_RATE);
  const chunk = stream.chunkSamples;
  let probs: Float32Array;
  try {
    probs = Float32Array.from([...await stream.process(samples), ...await stream.flush()]);
  } finally {
    stream.dispose();
  }
  const vadOptions = appVadOptions();
  const found = speechSegments(probs, chunk, VAD_RATE, samples.length, vadOptions);
  const segments = trimSegmentEdges(found, vadOptions.trimMs, VAD_RATE);
  // Unpadded: the rest of a window is non-speech to the vocabulary (as in a file job).
  const speech = speechSegments(probs, chunk, VAD_RATE, samples.length, { ...vadOptions, padMs: 0 });
  // The file job's longest window by default: the same cuts as the app.
  const maxSamples = Math.trunc((options.maxWindowSec ?? FILE_WINDOW_SEC) * VAD_RATE);
  const windows = planSpeechWindows(hopEnergiesOf(samples, VAD_RATE), segments, VAD_RATE, maxSamples, info.hopLength * info.subsamplingFactor);
  const parts: TranscribeResult[] = [];
  for (const w of windows) {
    const nonSpeech = options.vocabulary?.length ? windowNonSpeech(w, speech, VAD_RATE) : [];
    const decoded = await model.transcribe(samples.subarray(w.begin, w.end), {
      ...options,
      ...(nonSpeech.length ? { nonSpeech } : {}),
      sampleRate: VAD_RATE,
      // One window: never cut again.
      maxWindowSec: (w.end - w.begin) / VAD_RATE + 1,
    });
    const { mel: _mel, encoder: _encoder, logProbs: _logProbs, profile: _profile, ...plain } = decoded;
    parts.push({ ...offsetTranscript(plain, w.begin / VAD_RATE, info.frameSec), windows: [{ start: w.begin / VAD_RATE, end: w.end / VAD_RATE }] });
  }
  const vadInfo = vad.info();
  const decodedSamples = windows.reduce((n, w) => n + (w.end - w.begin), 0);
  return {
    result: joinWindows(parts, samples.length / VAD_RATE, info),
    speechCut: { detector: 'silero', model: `Silero VAD ${vadInfo.sourceVersion} (${vadInfo.weightType.toUpperCase()})`, decodedSec: decodedSamples / VAD_RATE },
  };
}
