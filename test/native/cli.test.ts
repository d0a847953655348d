// The `parakeet` CLI end to end: transcribe (json/srt/vtt/txt, --out, --dump-dir,
// --max-window-sec), devices (with --model: each device's self-test and speed), info, quantize,
// version, and its exit codes.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Model, type DeviceInfo, type ModelInfo, type TranscribeResult } from '../../native/index.js';
import type { DeviceSelfTest } from '../../app/ipc/contract.js';
import { generateModel } from '../support/model/generate.js';
import { MALFORMED_CASES } from '../support/model/malformed.js';
import { encodeWav16, seconds, speechSamples, writeWav16 } from './helpers/audio.js';
import { describeExit } from './helpers/child.js';
import { parakeet, parakeetMany } from './helpers/cli.js';
import { relL2 } from './helpers/compare.js';
import { parseNpy } from './helpers/npy.js';
import { scratchDir } from './helpers/tmp.js';
import { writeSparseWav } from '../support/audio/sparse-wav.js';

const dir = scratchDir('cli');
const modelPath = join(dir, 'hybrid.gguf');
const model = generateModel(modelPath, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 31 });
const SPEECH_SEC = 6;
const pcm = speechSamples(dir, seconds(SPEECH_SEC));
// 16-bit PCM WAV: what the engine sees is the 16-bit-rounded signal.
const wavPath = writeWav16(join(dir, 'speech.wav'), pcm);
const roundTripped = Float32Array.from(pcm, (x) => Math.round(Math.max(-1, Math.min(1, x)) * 32767) / 32768);

const TIME = String.raw`(\d{2}):(\d{2}):(\d{2})[,.](\d{3})`;
function clock(h: string, m: string, s: string, ms: string): number {
  return Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000;
}

function ok(args: string[]): string {
  const r = parakeet(args);
  assert.equal(r.status, 0, `parakeet ${args.join(' ')}: ${describeExit(r)}`);
  return r.stdout;
}

interface CliJson extends Omit<TranscribeResult, 'mel' | 'encoder' | 'logProbs'> {
  model: string;
}

describe('parakeet transcribe', () => {
  let json: CliJson | undefined;
  function transcribeJson(): CliJson {
    json ??= JSON.parse(ok(['transcribe', wavPath, '--model', modelPath, '--json', '--threads', '1'])) as CliJson;
    return json;
  }

  test('--json: text, words with timestamps, tokens, devicesRan', () => {
    const j = transcribeJson();
    assert.equal(j.model, modelPath);
    assert.ok(Math.abs(j.durationSec - SPEECH_SEC) < 1e-6, `durationSec ${j.durationSec}`);
    assert.equal(j.decoder, 'tdt');
    assert.ok(j.devicesRan.includes('CPU'), `devicesRan ${JSON.stringify(j.devicesRan)}`);
    assert.ok(j.tokens.length > 5, 'tokens');
    assert.ok(j.words.length > 3, 'words');
    assert.ok(j.text.length > 0);
    assert.equal(j.text.replace(/\s+/g, ' ').trim(), j.words.map((w) => w.text).join(' '), 'the words spell the text');
    let strict = 0;
    for (let i = 0; i < j.words.length; i++) {
      const w = j.words[i];
      assert.ok(w.start >= 0 && w.start <= w.end, `word ${i} '${w.text}' ${w.start}–${w.end}`);
      assert.ok(w.end <= j.durationSec + 4 * 0.08, `word ${i} ends after the audio (${w.end})`);
      if (w.start < w.end) strict++;
      if (i > 0) assert.ok(w.start >= j.words[i - 1].start, `word ${i} starts before word ${i - 1}`);
      assert.ok(w.confidence >= 0 && w.confidence <= 1);
    }
    // TDT tokens may have duration 0 (spec 4.5), so a one-token word can have start == end (as in the reference).
    assert.ok(strict >= j.words.length / 2, `${strict} of ${j.words.length} words have start < end`);
    for (const t of j.tokens) assert.ok(typeof t.piece === 'string' && t.end >= t.start);
    assert.ok(j.timings.totalMs > 0);
    assert.deepEqual(j.windows, [{ start: 0, end: j.durationSec }]);
  });

  test('--json --decoder ctc: every word has start < end (CTC tokens span ≥ 1 frame)', () => {
    const j = JSON.parse(ok(['transcribe', wavPath, '--model', modelPath, '--json', '--decoder', 'ctc', '--threads', '1'])) as CliJson;
    assert.equal(j.decoder, 'ctc');
    assert.ok(j.words.length > 3);
    for (let i = 0; i < j.words.length; i++) {
      const w = j.words[i];
      assert.ok(w.start < w.end, `word ${i} '${w.text}' ${w.start}–${w.end}`);
      assert.ok(w.end <= j.durationSec + 0.08);
      if (i > 0) assert.ok(w.start >= j.words[i - 1].end - 1e-9, `word ${i} overlaps word ${i - 1}`);
    }
  });

  test('the CLI transcript equals the API transcript of the same samples', async () => {
    const j = transcribeJson();
    const m = await Model.load(modelPath, { threads: 1 });
    const r = await m.transcribe(roundTripped);
    m.dispose();
    assert.equal(j.text, r.text);
    assert.deepEqual(j.tokens.map((t) => t.id), r.tokens.map((t) => t.id));
  });

  test('--format srt: numbered cues with valid, ordered times covering the words', () => {
    const srt = ok(['transcribe', wavPath, '--model', modelPath, '--format', 'srt', '--threads', '1']);
    const blocks = srt.trim().split(/\n\n+/);
    assert.ok(blocks.length >= 1);
    let prevEnd = 0;
    const cueText: string[] = [];
    blocks.forEach((block, i) => {
      const lines = block.split('\n');
      assert.equal(lines[0], String(i + 1), `cue ${i + 1} index`);
      const m = new RegExp(`^${TIME} --> ${TIME}$`).exec(lines[1]);
      assert.ok(m, `cue ${i + 1} time line: ${lines[1]}`);
      assert.ok(lines[1].includes(','), 'SRT uses a comma before the milliseconds');
      const start = clock(m[1], m[2], m[3], m[4]);
      const end = clock(m[5], m[6], m[7], m[8]);
      assert.ok(start <= end && start >= prevEnd - 1e-9, `cue ${i + 1}: ${start}–${end} after ${prevEnd}`);
      assert.ok(end <= SPEECH_SEC + 0.4);
      prevEnd = end;
      assert.ok(lines.length >= 3 && lines.slice(2).join(' ').trim().length > 0, `cue ${i + 1} has text`);
      cueText.push(lines.slice(2).join(' '));
    });
    assert.equal(cueText.join(' '), transcribeJson().words.map((w) => w.text).join(' '));
  });

  test('--format vtt: WEBVTT header and valid cues', () => {
    const vtt = ok(['transcribe', wavPath, '--model', modelPath, '--format', 'vtt', '--threads', '1']);
    assert.ok(vtt.startsWith('WEBVTT\n\n'), vtt.slice(0, 40));
    const blocks = vtt.slice('WEBVTT\n\n'.length).trim().split(/\n\n+/);
    let prevEnd = 0;
    for (const block of blocks) {
      const [timeLine, ...text] = block.split('\n');
      const m = new RegExp(`^${TIME} --> ${TIME}$`).exec(timeLine);
      assert.ok(m && timeLine.includes('.'), `VTT time line: ${timeLine}`);
      const start = clock(m[1], m[2], m[3], m[4]);
      const end = clock(m[5], m[6], m[7], m[8]);
      assert.ok(start <= end && start >= prevEnd - 1e-9);
      prevEnd = end;
      assert.ok(text.join(' ').trim().length > 0);
    }
  });

  test('txt (default) and --out FILE', () => {
    const txt = ok(['transcribe', wavPath, '--model', modelPath, '--threads', '1']);
    assert.equal(txt, `${transcribeJson().text}\n`);
    const out = join(dir, 'out.vtt');
    const stdout = ok(['transcribe', wavPath, '--model', modelPath, '--format', 'vtt', '--out', out, '--threads', '1']);
    assert.equal(stdout, '');
    assert.ok(readFileSync(out, 'utf8').startsWith('WEBVTT'));
  });

  test('--dump-dir writes mel.npy [bins, frames] and encoder.npy [frames, dim] matching the API captures', async () => {
    const dump = join(dir, 'dump');
    const r = parakeet(['transcribe', wavPath, '--model', modelPath, '--dump-dir', dump, '--decoder', 'ctc', '--threads', '1']);
    assert.equal(r.status, 0, describeExit(r));
    assert.match(r.stderr, /wrote mel\.npy and encoder\.npy/);
    const mel = parseNpy(new Uint8Array(readFileSync(join(dump, 'mel.npy'))));
    const enc = parseNpy(new Uint8Array(readFileSync(join(dump, 'encoder.npy'))));
    const S = roundTripped.length;
    const T = 1 + Math.floor(S / 160);
    assert.deepEqual(mel.shape, [model.options.nMels, T]);
    assert.equal(mel.fortranOrder, false);
    let tp = T;
    for (let i = 0; i < 3; i++) tp = Math.floor((tp - 1) / 2) + 1;
    assert.deepEqual(enc.shape, [tp, model.options.dModel]);
    const m = await Model.load(modelPath, { threads: 1 });
    const api = await m.transcribe(roundTripped, { decoder: 'ctc', captureMel: true, captureEncoder: true });
    m.dispose();
    assert.deepEqual(mel.data, api.mel?.data, 'mel.npy holds the engine mel');
    assert.ok(api.encoder);
    assert.ok(relL2(api.encoder.data, enc.data) <= 1e-6, 'encoder.npy holds the engine encoder output');
  });

  test('--max-window-sec cuts a long file into windows', () => {
    const long = writeWav16(join(dir, 'long.wav'), speechSamples(dir, seconds(14)));
    const j = JSON.parse(ok(['transcribe', long, '--model', modelPath, '--json', '--max-window-sec', '5', '--threads', '1'])) as CliJson;
    assert.ok(j.windows.length >= 3, JSON.stringify(j.windows));
    for (let i = 1; i < j.windows.length; i++) assert.equal(j.windows[i].start, j.windows[i - 1].end);
  });

  test('a WAV over 2 GiB is read by the streaming reader (64-channel float64 at 768 kHz: 2.2 GiB, 6 s of silence)', () => {
    const frames = Math.ceil((2.2 * 1024 ** 3) / 512);
    const big = join(dir, 'over-2gib.wav');
    writeSparseWav(big, { format: 3, bits: 64, channels: 64, rate: 768_000, dataBytes: frames * 512 });
    try {
      const out = JSON.parse(ok(['transcribe', big, '--model', modelPath, '--json', '--threads', '1'])) as CliJson;
      assert.ok(Math.abs(out.durationSec - frames / 768_000) < 1e-3, `${out.durationSec} s`);
    } finally {
      rmSync(big, { force: true });
    }
  });

  test('a WAV over 24 hours is refused from its header at once: 1 with [BAD_AUDIO]', () => {
    const long = join(dir, 'over-24h.wav');
    writeSparseWav(long, { format: 1, bits: 8, channels: 1, rate: 1000, dataBytes: 256 * 1024 ** 2 });
    const started = performance.now();
    const r = parakeet(['transcribe', long, '--model', modelPath]);
    assert.equal(r.status, 1, describeExit(r));
    assert.match(r.stderr, /\[BAD_AUDIO\].*74\.6 hours long; at most 24 hours/);
    assert.ok(performance.now() - started < 15_000, 'no decoding of 74 hours first');
  });

  test('default threads and 44.1 kHz stereo WAV input', () => {
    const stereo = new Float32Array(44100 * 2 * 2);
    for (let i = 0; i < 44100 * 2; i++) {
      stereo[2 * i] = 0.3 * Math.sin((2 * Math.PI * 300 * i) / 44100);
      stereo[2 * i + 1] = 0.2 * Math.sin((2 * Math.PI * 500 * i) / 44100);
    }
    const path = join(dir, 'stereo.wav');
    writeFileSync(path, encodeWav16(stereo, 44100, 2));
    const j = JSON.parse(ok(['transcribe', path, '--model', modelPath, '--json'])) as CliJson;
    assert.ok(Math.abs(j.durationSec - 2) < 1e-6);
  });
});

describe('parakeet devices / info / version', () => {
  test('devices (human and --json)', () => {
    const devices = JSON.parse(ok(['devices', '--json'])) as DeviceInfo[];
    const cpu = devices.find((d) => d.type === 'cpu');
    assert.ok(cpu && cpu.name === 'CPU' && cpu.memoryTotal > 0 && cpu.cpuFeatures.length > 0, JSON.stringify(devices));
    const human = ok(['devices']);
    assert.match(human, /^CPU {2}\(cpu, backend CPU\)/m);
    assert.match(human, /threads: \d+/);
    assert.ok(human.includes(`features: ${cpu.cpuFeatures.join(' ')}`), human);
    assert.doesNotMatch(human, /self-test|speed:/, 'without --model: properties only');
  });

  test('devices --model: each device\'s self-test verdict and measured speed (human and --json)', () => {
    type Checked = DeviceInfo & { selfTest?: DeviceSelfTest; selfTestError?: string };
    const devices = JSON.parse(ok(['devices', '--json', '--model', modelPath, '--threads', '1'])) as Checked[];
    for (const d of devices) assert.ok(d.selfTest !== undefined || d.selfTestError !== undefined, `${d.name}: a verdict or the reason`);
    const cpu = devices.find((d) => d.type === 'cpu');
    assert.ok(cpu?.selfTest, JSON.stringify(cpu));
    assert.equal(cpu.selfTest.device, 'CPU');
    assert.equal(cpu.selfTest.reference, 'cpu-scheduled');
    assert.equal(cpu.selfTest.passed, true, cpu.selfTest.detail);
    const speed = cpu.selfTest.speed;
    assert.ok(speed && speed.audioMs > 0 && speed.deviceMs > 0 && speed.referenceMs > 0, JSON.stringify(speed));
    const human = ok(['devices', '--model', modelPath, '--threads', '1']);
    const block = human.slice(human.search(/^CPU {2}\(cpu, backend CPU\)/m));
    assert.match(block, /^ {4}self-test: passed \(.+\)$/m, human);
    assert.match(block, /^ {4}speed: [\d.]+ s of audio in (\d+ ms|[\d.]+ s) \([\d.]+× real time\)$/m, human);
  });

  test('info (human and --json)', () => {
    const info = JSON.parse(ok(['info', modelPath, '--json', '--threads', '1'])) as ModelInfo;
    assert.equal(info.arch, 'hybrid_tdt_ctc');
    assert.deepEqual(info.decoders, ['tdt', 'ctc']);
    assert.equal(info.dModel, model.options.dModel);
    assert.equal(info.nLayers, model.options.nLayers);
    assert.equal(info.vocabSize, model.options.vocabSize);
    assert.deepEqual(info.tensorTypes, { f32: model.tensors.length });
    const human = ok(['info', modelPath]);
    assert.match(human, /architecture: hybrid_tdt_ctc {2}\(decoders: tdt, ctc; default tdt\)/);
    assert.match(human, new RegExp(`d_model ${model.options.dModel}, ${model.options.nLayers} layers`));
    assert.match(human, /durations \[0, 1, 2, 3, 4\]/);
    const converted = JSON.parse(ok(['info', modelPath, '--json', '--weight-type', 'q8_0'])) as ModelInfo;
    assert.equal(converted.weightType, 'q8_0');
    assert.ok((converted.weightTypes.q8_0 ?? 0) > 0);
  });

  test('version names ggml and the CPU backend', () => {
    assert.match(ok(['version']), /ggml \d+\.\d+\.\d+ .*backends: .*CPU/);
  });
});

describe('parakeet quantize', () => {
  for (const [type, typeName] of [['q8_0', 'q8_0'], ['q4_k', 'q4_K']] as const) {
    test(`f32 → ${type} produces a loadable model whose tensorTypes show ${typeName}`, async () => {
      const out = join(dir, `quantized-${type}.gguf`);
      const r = parakeet(['quantize', modelPath, out, type]);
      assert.equal(r.status, 0, describeExit(r));
      assert.match(r.stderr, /wrote /);
      const m = await Model.load(out, { threads: 1 });
      const info = m.info();
      const res = await m.transcribe(pcm.subarray(0, seconds(1)));
      m.dispose();
      assert.ok((info.tensorTypes[typeName] ?? 0) > 0, `tensorTypes ${JSON.stringify(info.tensorTypes)}`);
      assert.equal(res.durationSec, 1);
      const viaCli = JSON.parse(ok(['info', out, '--json'])) as ModelInfo;
      assert.deepEqual(viaCli.tensorTypes, info.tensorTypes);
    });
  }
});

describe('exit codes', () => {
  const bad = MALFORMED_CASES.find((c) => c.name === 'vocab-size-mismatch');
  assert.ok(bad);
  const badModel = join(dir, 'bad-model.gguf');
  bad.write(badModel);

  test('bad model → 1 with [MODEL_INVALID] (transcribe, info, quantize, devices --model, missing file)', async () => {
    const runs = [
      ['transcribe', wavPath, '--model', badModel],
      ['info', badModel],
      ['devices', '--model', badModel],
      ['quantize', badModel, join(dir, 'never.gguf'), 'q8_0'],
      ['info', join(dir, 'missing.gguf')],
    ];
    const results = await parakeetMany(runs);
    results.forEach((r, i) => {
      assert.equal(r.status, 1, `${runs[i].join(' ')}: ${describeExit(r)}`);
      assert.match(r.stderr, /\[MODEL_INVALID\]/, r.stderr);
      assert.equal(r.stdout, '');
    });
  });

  test('bad audio → 1 with [BAD_AUDIO]: not a WAV, an empty WAV', async () => {
    const notWav = join(dir, 'not-a-wav.wav');
    writeFileSync(notWav, 'this is text, not audio\n');
    const emptyWav = join(dir, 'empty.wav');
    writeFileSync(emptyWav, encodeWav16(new Float32Array(0), 16000));
    const runs = [notWav, emptyWav].map((path) => ['transcribe', path, '--model', modelPath]);
    const results = await parakeetMany(runs);
    results.forEach((r, i) => {
      assert.equal(r.status, 1, `${runs[i].join(' ')}: ${describeExit(r)}`);
      assert.match(r.stderr, /\[BAD_AUDIO\]/, r.stderr);
    });
  });

  test('a head the model lacks → 1 with [BAD_ARGUMENT]', () => {
    const r = parakeet(['transcribe', wavPath, '--model', modelPath, '--decoder', 'rnnt', '--threads', '1']);
    assert.equal(r.status, 1, describeExit(r));
    assert.match(r.stderr, /\[BAD_ARGUMENT\].*decoders: tdt, ctc/);
  });

  test('usage errors → 2', async () => {
    const runs = [
      [],
      ['frobnicate'],
      ['transcribe', wavPath],
      ['transcribe', '--model', modelPath],
      ['transcribe', wavPath, '--model', modelPath, '--format', 'docx'],
      ['transcribe', wavPath, '--model', modelPath, '--no-such-flag'],
      ['transcribe', wavPath, '--model', modelPath, '--threads=-1'],
      ['transcribe', wavPath, '--model', modelPath, '--max-window-sec', 'abc'],
      ['info'],
      ['quantize', modelPath],
      ['help'],
    ];
    const results = await parakeetMany(runs);
    results.forEach((r, i) => {
      const expected = runs[i][0] === 'help' ? 0 : 2;
      assert.equal(r.status, expected, `parakeet ${runs[i].join(' ')}: ${describeExit(r)}`);
      if (expected === 2) assert.match(r.stderr + r.stdout, /usage|help|parakeet/i);
    });
    assert.match(results[results.length - 1].stdout, /Exit status/);
  });

  test('usage errors found by the option parser (missing option value, stray positional) → 2', async () => {
    const runs = [
      ['transcribe', wavPath, '--model', modelPath, '--threads', '-1'], // "-1" is taken for an option: missing value
      ['transcribe', wavPath, '--model'],
      ['devices', 'extra'],
    ];
    const results = await parakeetMany(runs);
    const wrong = results
      .map((r, i) => ({ r, args: runs[i] }))
      .filter(({ r }) => r.status !== 2)
      .map(({ r, args }) => `parakeet ${args.map((a) => a.replace(dir, '…')).join(' ')} → exit ${r.status}: ${r.stderr.trim().split('\n')[0]}`);
    assert.deepEqual(wrong, []);
  });
});
