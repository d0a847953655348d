// The `parakeet vad` contract: `parakeet vad WAV --model SILERO.gguf --json` prints {"probs": [one per chunk],
// "segments": [{"start", "end"}]}; 8 kHz audio runs the 8 kHz weights on 256-sample chunks, other rates are
// resampled to 16 kHz; the probabilities are ONNX Runtime's on the same ONNX within 1e-4; wrong files are
// refused with what they are; --model may be left out (the bundled Silero).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { convertSileroOnnx } from '../../app/main/vad/silero-gguf.js';
import { SILERO_V6_ONNX, readPinnedOnnx } from '../../app/main/vad/bundled-silero.js';
import { readWavMono } from '../../app/engine-process/wav-file.js';
import { resample } from '../../app/shared/resample.js';
import { DIGITS_MODEL, REPO_ROOT } from '../support/audio/digits.js';
import { ortSileroProbs } from '../support/vad/ort-silero.js';
import { writeRandomSilero } from '../support/vad/generate-silero.js';
import { SileroReference } from '../reference/silero-vad.js';
import { concat, seconds, speechSamples, writeWav16 } from './helpers/audio.js';
import { parakeet } from './helpers/cli.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('vad-cli');

interface VadJson {
  probs: number[];
  segments: { start: number; end: number }[];
}

function vadJson(args: string[]): VadJson {
  const r = parakeet(['vad', ...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const parsed = JSON.parse(r.stdout) as VadJson;
  assert.deepEqual(Object.keys(parsed), ['probs', 'segments']);
  return parsed;
}

/** 1.5 s silence | speech | 1.5 s silence, at 16 kHz and as sox writes it at 8 and 44.1 kHz. */
function fixture(): { wav16: string; wav8: string; wav44: string; speechStart: number; speechEnd: number } {
  const speech = speechSamples(dir, seconds(3));
  const pcm = concat(new Float32Array(seconds(1.5)), speech, new Float32Array(seconds(1.5)));
  const wav16 = writeWav16(join(dir, 'speech16.wav'), pcm);
  const wav8 = join(dir, 'speech8.wav');
  const wav44 = join(dir, 'speech44.wav');
  execFileSync('sox', [wav16, '-r', '8000', wav8]);
  execFileSync('sox', [wav16, '-r', '44100', wav44]);
  return { wav16, wav8, wav44, speechStart: 1.5, speechEnd: 4.5 };
}

test('parakeet vad --json: one probability per chunk at 16 / 8 kHz (44.1 kHz resampled), ONNX Runtime within 1e-4, segments around the speech', async () => {
  const f = fixture();
  const gguf = join(dir, 'v6.gguf');
  writeFileSync(gguf, convertSileroOnnx(readPinnedOnnx(SILERO_V6_ONNX, REPO_ROOT)).gguf);
  const onnx = join(REPO_ROOT, SILERO_V6_ONNX.file);
  for (const [wav, rate, chunk] of [[f.wav16, 16000, 512], [f.wav8, 8000, 256], [f.wav44, 16000, 512]] as const) {
    const out = vadJson([wav, '--model', gguf]);
    const file = await readWavMono(wav);
    const pcm = file.sampleRate === rate ? file.samples : resample(file.samples, file.sampleRate, rate);
    assert.equal(out.probs.length, Math.ceil(pcm.length / chunk), `${wav}: one probability per ${chunk} samples`);
    const expected = await ortSileroProbs(onnx, pcm, rate);
    let diff = 0;
    for (let i = 0; i < expected.length; i++) diff = Math.max(diff, Math.abs(expected[i]! - out.probs[i]!));
    assert.ok(diff <= 1e-4, `${wav}: max |cli − onnxruntime| = ${diff}`);
    assert.ok(out.segments.length >= 1, `${wav}: speech found`);
    const first = out.segments[0]!;
    const last = out.segments.at(-1)!;
    assert.ok(Math.abs(first.start - f.speechStart) < 0.3, `${wav}: speech starts near ${f.speechStart} s, got ${first.start}`);
    assert.ok(Math.abs(last.end - f.speechEnd) < 0.5, `${wav}: speech ends near ${f.speechEnd} s, got ${last.end}`);
  }
});

test('parakeet vad on a generated Silero model prints the float64 reference\'s probabilities; silence has no segments', () => {
  const gguf = join(dir, 'random.gguf');
  const [w16] = writeRandomSilero(gguf, 23);
  const pcm = speechSamples(dir, seconds(1.3));
  const wav = writeWav16(join(dir, 'random-in.wav'), pcm);
  const out = vadJson([wav, '--model', gguf]);
  const reference = new SileroReference({
    nFft: w16!.nFft, hop: w16!.hop, chunkSamples: 512, contextSamples: 64, rightPad: w16!.rightReflectPad, hidden: 128, tensors: w16!.tensors,
  }).run(pcm);
  assert.equal(out.probs.length, reference.length);
  for (let i = 0; i < reference.length; i++) assert.ok(Math.abs(out.probs[i]! - reference[i]!) <= 1e-4, `chunk ${i}`);

  const silent = vadJson([writeWav16(join(dir, 'silence.wav'), new Float32Array(seconds(2)))]);
  assert.equal(silent.probs.length, Math.ceil(seconds(2) / 512));
  assert.deepEqual(silent.segments, [], 'the bundled model finds no speech in digital silence');
});

test('a Silero file is refused by transcribe and info, an ASR file by vad, each naming what the file is', () => {
  const gguf = join(dir, 'refuse.gguf');
  writeRandomSilero(gguf, 4);
  const wav = writeWav16(join(dir, 'refuse.wav'), new Float32Array(seconds(1)));
  for (const args of [['transcribe', wav, '--model', gguf], ['info', gguf]]) {
    const r = parakeet(args);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /MODEL_INVALID.*this is a Silero voice-activity model.*not a speech recognition model/);
  }
  for (const args of [['vad', wav, '--model', DIGITS_MODEL], ['transcribe', wav, '--model', DIGITS_MODEL, '--vad-model', DIGITS_MODEL]]) {
    const r = parakeet(args);
    assert.equal(r.status, 1, args.join(' '));
    assert.match(r.stderr, /MODEL_INVALID.*this is a Parakeet speech recognition model.*not a voice-activity model/);
  }
  // No speech at all (this second of digital silence): an empty transcript, nothing decoded, not an error.
  const silent = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--vad', '--json']);
  assert.equal(silent.status, 0, silent.stderr);
  const quiet = JSON.parse(silent.stdout) as { text: string; words: unknown[]; speechCut: unknown };
  assert.deepEqual([quiet.text, quiet.words, quiet.speechCut], ['', [], { detector: 'silero', model: 'Silero VAD v6.2 (F32)', decodedSec: 0 }]);
  assert.match(silent.stderr, /\(nothing decoded\) on CPU/);
  assert.match(silent.stderr, /speech found by Silero VAD v6\.2 \(F32\): 0\.0 s of 1\.0 s decoded, 1\.0 s of silence skipped/);
  const streamed = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--vad', '--stream']);
  assert.equal(streamed.status, 2);
  assert.match(streamed.stderr, /--vad \(and the --vad-\* options\) cut a file for offline transcription: not with --stream or --dump-dir/);
  assert.match(parakeet(['help']).stdout, /vad <audio> \[--model <silero\.gguf>\][\s\S]*bundled Silero VAD v6\.2/);
});

test('parakeet vad refuses an empty or non-numeric option value instead of reading it as 0, and a threshold of 0 or above 1', () => {
  const wav = writeWav16(join(dir, 'options.wav'), new Float32Array(seconds(1)));
  for (const [flag, value] of [['--threshold', ''], ['--threshold', ' '], ['--min-speech-ms', ''], ['--pad-ms', 'abc'], ['--min-silence-ms', '-1']]) {
    const r = parakeet(['vad', wav, '--model', 'unused.gguf', `${flag}=${value}`]);
    assert.equal(r.status, 2, `${flag}="${value}": ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`${flag} must be a number ≥ 0`));
  }
  // At 0 no chunk is below the threshold: speech would never end (one segment, the whole file).
  for (const value of ['0', '1.5']) {
    const r = parakeet(['vad', wav, '--model', 'unused.gguf', `--threshold=${value}`]);
    assert.equal(r.status, 2, `--threshold=${value}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`--threshold must be above 0 and at most 1, got "${value.replace('.', '\\.')}"`));
  }
});

test('transcribe\'s --vad-* and --min-word-confidence options hold to Settings\' ranges and refuse what they cannot mean', () => {
  const wav = writeWav16(join(dir, 'cut-options.wav'), new Float32Array(seconds(1)));
  const refused: [string[], RegExp][] = [
    [['--vad-threshold', '1.5'], /--vad-threshold must be a number from 0\.05 to 0\.95 \(as in Settings\), got "1\.5"/],
    [['--vad-threshold='], /--vad-threshold must be a number from 0\.05 to 0\.95/],
    [['--vad-min-speech-ms', '12.5'], /--vad-min-speech-ms must be a whole number from 0 to 5000/],
    [['--vad-min-silence-ms', '10'], /--vad-min-silence-ms must be a whole number from 50 to 5000/],
    [['--vad-pad-ms', 'abc'], /--vad-pad-ms must be a whole number from 0 to 1000/],
    [['--vad-trim-ms=-1'], /--vad-trim-ms must be a whole number from 0 to 1000/],
    [['--min-word-confidence', '1'], /--min-word-confidence must be a number from 0 to 0\.99/],
    [['--vad-threshold', '0.6', '--stream'], /--vad \(and the --vad-\* options\) cut a file for offline transcription/],
    [['--min-word-confidence', '0.5', '--stream'], /--min-word-confidence applies to offline transcription, not --stream/],
  ];
  for (const [args, message] of refused) {
    const r = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, ...args]);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  // A --vad-* option alone cuts with the VAD: speechCut in the JSON.
  const cut = parakeet(['transcribe', wav, '--model', DIGITS_MODEL, '--vad-threshold', '0.6', '--json']);
  assert.equal(cut.status, 0, cut.stderr);
  assert.equal((JSON.parse(cut.stdout) as { speechCut?: { detector: string } }).speechCut?.detector, 'silero');
  assert.match(parakeet(['help']).stdout, /--vad-threshold P, --vad-min-speech-ms N, --vad-min-silence-ms N, --vad-pad-ms N, --vad-trim-ms N\n\s+--vad with these instead of Settings' defaults \(0\.5, 160, 300, 30, 0; Settings' ranges\)/);
});
