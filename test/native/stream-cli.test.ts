// `parakeet transcribe --stream --json` (issue 39's contract, read by a checker exactly as written):
// the usual JSON plus `stream` {token_ids, token_frames, chunks[{token_ids, token_frames}], events[{type,
// frame}]}, on generated models of the three streaming families stored as F32 and as Q8_0; the usage
// errors of --stream, --att-context and --language; `parakeet info` listing presets and locales.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ModelInfo } from '../../native/index.js';
import { reliableTokenCount } from '../reference/decoding.js';
import { referenceStream } from '../reference/stream.js';
import { concat, quiet, speechLike } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { writeWav16 } from './helpers/audio.js';
import { describeExit } from './helpers/child.js';
import { parakeet, parakeetMany } from './helpers/cli.js';
import { familyModel, STREAMING_FAMILIES } from './helpers/stream.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('stream-cli');
const pcm = concat(speechLike(1.7, 21), quiet(0.5, 22), speechLike(1.9, 23));
const wav = writeWav16(join(dir, 'speech.wav'), pcm);
// What the engine reads from the 16-bit WAV.
const heard = Float32Array.from(pcm, (x) => Math.round(Math.max(-1, Math.min(1, x)) * 32767) / 32768);

interface StreamObject {
  token_ids: number[];
  token_frames: number[];
  chunks: { token_ids: number[]; token_frames: number[] }[];
  events: { type: string; frame: number }[];
}

interface StreamCliJson {
  text: string;
  durationSec: number;
  decoder: string;
  model: string;
  words: unknown[];
  tokens: { id: number; piece: string }[];
  stream: StreamObject;
}

/** The contract's shape, key for key; returns the parsed object. */
function checkShape(label: string, stdout: string, pieces: readonly string[]): StreamCliJson {
  const out = JSON.parse(stdout) as StreamCliJson;
  for (const key of ['text', 'words', 'tokens', 'durationSec', 'decoder', 'model', 'stream']) assert.ok(key in out, `${label}: the usual field ${key}`);
  const s = out.stream;
  assert.deepEqual(Object.keys(s).sort(), ['chunks', 'events', 'token_frames', 'token_ids'], `${label}: stream keys`);
  assert.equal(s.token_frames.length, s.token_ids.length, `${label}: one frame per token`);
  for (const c of s.chunks) assert.deepEqual(Object.keys(c).sort(), ['token_frames', 'token_ids'], `${label}: chunk keys`);
  assert.deepEqual(s.chunks.flatMap((c) => c.token_ids), s.token_ids, `${label}: token_ids are the chunks' in order`);
  assert.deepEqual(s.chunks.flatMap((c) => c.token_frames), s.token_frames, `${label}: token_frames are the chunks' in order`);
  for (let i = 1; i < s.token_frames.length; i++) assert.ok(s.token_frames[i] >= s.token_frames[i - 1], `${label}: frames never go back`);
  // Events are exactly the special tokens, at their frames.
  const expected = s.token_ids.flatMap((id, i) => {
    const piece = pieces[id];
    // Language tags: <K> for a key K of the generated prompt dictionary (never <unk>, which the vocabulary has too).
    const type = piece === '<EOU>' ? 'eou' : piece === '<EOB>' ? 'eob' : /^<[a-z]{2}-[A-Z]{2}>$/.test(piece) ? 'lang' : null;
    return type === null ? [] : [{ type, frame: s.token_frames[i] }];
  });
  for (const e of s.events) assert.deepEqual(Object.keys(e).sort(), ['frame', 'type'], `${label}: event keys`);
  assert.deepEqual(s.events, expected, `${label}: events`);
  assert.ok(!/<[^>]*>/.test(out.text), `${label}: no special pieces in the text: ${out.text}`);
  assert.ok(out.tokens.every((t) => !t.piece.startsWith('<')), `${label}: no special pieces in the tokens`);
  assert.equal(out.decoder, 'rnnt');
  return out;
}

const offline = generateModel(join(dir, 'offline.gguf'), { preset: 'tiny', arch: 'rnnt', seed: 3 });

for (const family of STREAMING_FAMILIES) {
  for (const weightType of ['f32', 'q8_0'] as const) {
    test(`${family} ${weightType}: transcribe --stream --json holds the contract${weightType === 'f32' ? ' and carries the reference\'s tokens' : ''}`, () => {
      const m = familyModel(dir, family, weightType);
      // F32 on the exact layout is compared with the float64 reference; Q8_0 runs on the 'auto' layout.
      const args = ['transcribe', wav, '--model', m.path, '--stream', '--json', ...(weightType === 'f32' ? ['--weight-type', 'f32'] : [])];
      const r = parakeet(args);
      assert.equal(r.status, 0, describeExit(r));
      const out = checkShape(`${family} ${weightType}`, r.stdout, m.pieces);
      const ref = referenceStream(openWeightSource(m.path), heard);
      assert.equal(out.stream.chunks.length, ref.chunks.length, 'one entry per streaming step, empty ones included');
      assert.ok(out.stream.chunks.some((c) => c.token_ids.length === 0), 'steps that emitted nothing are listed too');
      if (weightType === 'f32') {
        const upTo = reliableTokenCount(ref.steps);
        assert.ok(upTo >= 5, `a non-trivial decode (${upTo} decided tokens)`);
        assert.deepEqual(out.stream.token_ids.slice(0, upTo), ref.tokenIds.slice(0, upTo));
        assert.deepEqual(out.stream.token_frames.slice(0, upTo), ref.tokenFrames.slice(0, upTo));
        if (upTo === ref.tokenIds.length) {
          assert.deepEqual(out.stream.events, ref.events);
          assert.equal(out.text, ref.text);
        }
      }
    });
  }
}

test('--att-context and --language pick a preset and a locale: the reference\'s schedule and prompt', () => {
  const m = familyModel(dir, 'nemotron-3.5', 'f32');
  const r = parakeet(['transcribe', wav, '--model', m.path, '--stream', '--att-context', '56,13', '--language', 'de-DE', '--json', '--weight-type', 'f32']);
  assert.equal(r.status, 0, describeExit(r));
  const out = checkShape('nemotron-3.5 [56,13] de-DE', r.stdout, m.pieces);
  const ref = referenceStream(openWeightSource(m.path), heard, { attContext: [56, 13], language: 'de-DE' });
  assert.equal(out.stream.chunks.length, ref.chunks.length);
  const upTo = reliableTokenCount(ref.steps);
  assert.deepEqual(out.stream.token_ids.slice(0, upTo), ref.tokenIds.slice(0, upTo));
  const auto = referenceStream(openWeightSource(m.path), heard, { attContext: [56, 13], language: 'auto' });
  assert.notDeepEqual(auto.tokenIds, ref.tokenIds, 'the locale changes the prompt, so the decode');
});

test('usage errors: --stream on an offline model, an unknown preset or locale, --language without a prompt, options without --stream', async () => {
  const eou = familyModel(dir, 'eou', 'f32').path;
  const prompt = familyModel(dir, 'nemotron-3.5', 'f32').path;
  const cases: { args: string[]; says: RegExp }[] = [
    { args: ['--model', offline.path, '--stream'], says: /--stream needs a cache-aware streaming model; .*offline model/ },
    { args: ['--model', prompt, '--stream', '--att-context', '70,1'], says: /--att-context must name one of this model's presets .*56,3 56,0 56,6 56,13; got '70,1'/ },
    { args: ['--model', prompt, '--stream', '--att-context', 'wide'], says: /--att-context must name one of this model's presets/ },
    { args: ['--model', prompt, '--stream', '--language', 'xx-XX'], says: /--language must be 'auto' or one of this model's locales: auto en-US de-DE fr-FR es-ES; got 'xx-XX'/ },
    { args: ['--model', eou, '--stream', '--language', 'en-US'], says: /--language needs a model with a language prompt/ },
    { args: ['--model', eou, '--att-context', '70,1'], says: /add --stream/ },
  ];
  const results = await parakeetMany(cases.map((c) => ['transcribe', wav, ...c.args]), 2);
  results.forEach((r, i) => {
    assert.equal(r.status, 2, `${cases[i].args.join(' ')}: ${describeExit(r)}`);
    assert.match(r.stderr, cases[i].says);
    assert.equal(r.stdout, '', 'nothing on stdout');
  });
});

test('parakeet info lists the presets (first = default) and the locales', () => {
  const m = familyModel(dir, 'nemotron-3.5', 'q8_0');
  const text = parakeet(['info', m.path]);
  assert.equal(text.status, 0, describeExit(text));
  assert.match(text.stdout, /streaming: +attention presets 56,3 \(default\), 56,0, 56,6, 56,13/);
  assert.match(text.stdout, /languages: +en-US de-DE fr-FR es-ES, or auto \(the default; the model's default_lang is auto\)/);
  const json = parakeet(['info', m.path, '--json']);
  const info = JSON.parse(json.stdout) as ModelInfo;
  assert.equal(info.streaming, true);
  assert.deepEqual(info.attContextPresets, [[56, 3], [56, 0], [56, 6], [56, 13]]);
  assert.deepEqual(info.languages, ['auto', 'en-US', 'de-DE', 'fr-FR', 'es-ES']);
  assert.equal(info.hasPrompt, true);
  const plain = JSON.parse(parakeet(['info', offline.path, '--json']).stdout) as ModelInfo;
  assert.equal(plain.streaming, false);
  assert.deepEqual(plain.attContextPresets, []);
});
