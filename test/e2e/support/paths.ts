// Where the end-to-end suite keeps what it generates. A fixed folder (git-
// ignored .cache/) because Chromium's fake microphone file is a launch flag,
// known when the config is read, before any fixture runs.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const ASSET_DIR = join(REPO_ROOT, '.cache', 'e2e');
/** Tiny random-weight hybrid TDT/CTC model (Q8_0), the one every spec loads. */
export const MODEL_PATH = join(ASSET_DIR, 'tiny-hybrid-q8_0.gguf');
/** Tiny cache-aware streaming models (F32): an EOU-120M-like one and a Nemotron-3.5-like one with a language prompt. */
export const STREAM_EOU_MODEL_PATH = join(ASSET_DIR, 'tiny-stream-eou.gguf');
export const STREAM_PROMPT_MODEL_PATH = join(ASSET_DIR, 'tiny-stream-nemotron-3.5.gguf');
/** espeak-ng sentences with pauses, 16 kHz mono 16-bit: what the fake microphone plays. */
export const SPEECH_WAV = join(ASSET_DIR, 'speech.wav');
/** SPEECH_WAV ten times over (≈ 126 s, 4 MB): an upload long enough to cancel mid-way (upload.spec.ts). */
export const LONG_SPEECH_WAV = join(ASSET_DIR, 'speech-x10.wav');
/**
 * SPEECH_WAV 200 times over (≈ 42 min, 81 MB), for cancelling a file job: the tiny model runs
 * speech-x10 at ≈ 800× real time on a Zen 5 core (157 ms), over before a click lands.
 */
export const CANCEL_SPEECH_WAV = join(ASSET_DIR, 'speech-x200.wav');
/** Spoken digit strings for the trained digits model (test/support/audio/digits.ts), with their parts and espeak-ng's word times. */
export const DIGITS_MIC_WAV = join(ASSET_DIR, 'digits-dictation.wav');
export const DIGITS_MIC_JSON = join(ASSET_DIR, 'digits-dictation.json');
export const DIGITS_FILE_WAV = join(ASSET_DIR, 'digits-file.wav');
/** Digit strings with noise, hum and clicks between them (the Silero VAD spec's microphone). */
export const NOISY_DIGITS_MIC_WAV = join(ASSET_DIR, 'digits-noisy-dictation.wav');
export const NOISY_DIGITS_MIC_JSON = join(ASSET_DIR, 'digits-noisy-dictation.json');
export const DIGITS_FILE_JSON = join(ASSET_DIR, 'digits-file.json');
export const SCREENSHOT_DIR = join(REPO_ROOT, 'docs', 'screenshots');
export const RENDERER_DIST = join(REPO_ROOT, 'dist', 'renderer');
export const CHROMIUM = process.env.PARAKEET_CHROMIUM ?? '/usr/bin/chromium';

/** The sentences of SPEECH_WAV, in order, and the silence around them (s). */
export const SENTENCES = [
  'Hello, this is a dictation test.',
  'The quick brown fox jumps over the lazy dog.',
  'Please write this down before we stop.',
];
export const LEAD_SILENCE_SEC = 0.6;
export const PAUSE_SEC = 1.4;
export const TAIL_SILENCE_SEC = 2.0;

/** Chromium flags for a fake microphone that plays `wav` once, with no permission prompt. */
export function chromiumArgs(wav: string, opts: { grantMic?: boolean } = {}): string[] {
  return [
    ...(opts.grantMic === false ? [] : ['--use-fake-ui-for-media-stream']),
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${wav}%noloop`,
    '--autoplay-policy=no-user-gesture-required',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
  ];
}
