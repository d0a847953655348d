// `parakeet transcribe --vad`: a file cut as the app's Files view cuts it (the engine process's fileOpen with a
// trained VAD), with the same pieces: the VAD pass of a file job (VadFilePass: Silero's segments with the file
// job's settings — Settings' defaults, or the --vad-* options —, padded and trimmed, and the hop energies), the
// window planner over the segments only (silent stretches never reach the decoder, long speech cut at its
// quietest hop), each window decoded alone and moved into the clip's timeline, the file job's join and its
// confidence floor. The CLI holds the clip in memory.
import type { Model, TranscribeOptions, VadModel } from '../../native/index.js';
import type { DictationSettings, FileSpeechCut } from '../ipc/contract.js';
import { DEFAULT_DICTATION } from '../ipc/settings.js';
import { keepConfidentTranscript } from '../shared/silence-guards.js';
import { fadeInOnset, fadesFileOnsets } from '../shared/onset-fade.js';
import type { EngineTranscript } from '../engine-process/protocol.js';
import { planSpeechWindows } from '../engine-process/speech-windows.js';
import { VadFilePass } from '../engine-process/vad-file-pass.js';
import { windowNonSpeech } from '../engine-process/window-non-speech.js';
import { oneWindowSec, windowInFile } from '../engine-process/window-in-file.js';
import { FILE_WINDOW_SEC, joinWindows } from '../main/engine/file-job.js';
import { fileVadOptions } from '../main/files/file-vad-options.js';
import { sileroModelName } from '../shared/silero-name.js';

/** Silero's rate: the speech models the CLI loads run at it too (a model at another rate is refused). */
const VAD_RATE = 16000;

/** The Settings a file job's cut reads (Settings → Dictation): the CLI's --vad-* options, else their defaults. */
export type SpeechCutSettings = Pick<DictationSettings,
  'vadSpeechThreshold' | 'vadMinSpeechMs' | 'vadMinSilenceMs' | 'vadSpeechPadMs' | 'vadEdgeTrimMs' | 'minWordConfidence'>;

export interface SpeechOnlyResult {
  result: EngineTranscript;
  speechCut: FileSpeechCut;
}

export async function transcribeSpeechOnly(
  model: Model, vad: VadModel, samples: Float32Array, options: Omit<TranscribeOptions, 'sampleRate' | 'captureMel' | 'captureEncoder'>,
  settings: SpeechCutSettings = DEFAULT_DICTATION,
): Promise<SpeechOnlyResult> {
  const info = model.info();
  if (info.sampleRate !== VAD_RATE) {
    throw new Error(`--vad cuts at ${VAD_RATE / 1000} kHz (Silero's rate); ${info.name || 'this model'} runs at ${info.sampleRate} Hz`);
  }
  const pass = new VadFilePass(vad.createStream(VAD_RATE), VAD_RATE, fileVadOptions(settings));
  let cut: Awaited<ReturnType<VadFilePass['finish']>>;
  try {
    await pass.push(samples);
    cut = await pass.finish();
  } finally {
    pass.dispose();
  }
  // The file job's longest window by default: the same cuts as the app.
  const maxSamples = Math.trunc((options.maxWindowSec ?? FILE_WINDOW_SEC) * VAD_RATE);
  const windows = planSpeechWindows(cut.energies, cut.segments, VAD_RATE, maxSamples, info.hopLength * info.subsamplingFactor);
  const fade = fadesFileOnsets(fileVadOptions(settings));
  const parts: EngineTranscript[] = [];
  for (const w of windows) {
    // The vocabulary buys no word where the VAD heard no speech (as in a file job).
    const nonSpeech = options.vocabulary?.length ? windowNonSpeech(w, cut.speech, VAD_RATE) : [];
    // A window where Silero found speech start is faded in, as the engine process does (onset-fade.ts).
    const clip = samples.subarray(w.begin, w.end);
    const decoded = await model.transcribe(w.onset && fade ? fadeInOnset(clip, VAD_RATE) : clip, {
      ...options, ...(nonSpeech.length ? { nonSpeech } : {}), sampleRate: VAD_RATE, maxWindowSec: oneWindowSec(w, VAD_RATE),
    });
    const { mel: _mel, encoder: _encoder, logProbs: _logProbs, profile: _profile, ...plain } = decoded;
    parts.push(windowInFile(plain, w, VAD_RATE, info.frameSec));
  }
  const vadInfo = vad.info();
  const decodedSamples = windows.reduce((n, w) => n + (w.end - w.begin), 0);
  const joined = joinWindows(parts, samples.length / VAD_RATE, info);
  // The file job's floor (file-transcriber.ts): words below it dropped, the text then the kept words'.
  const { text, words } = keepConfidentTranscript(joined, settings.minWordConfidence);
  return {
    result: { ...joined, text, words },
    speechCut: { detector: 'silero', model: sileroModelName(vadInfo.sourceVersion, vadInfo.weightType), decodedSec: decodedSamples / VAD_RATE },
  };
}
