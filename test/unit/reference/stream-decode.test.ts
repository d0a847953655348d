// The streaming reference end to end: the CLI contract's fields, independence from the PCM block
// size, the final partial chunk, the RNNT state carried across chunks and reset after <EOU>/<EOB>,
// the prompt kernel and language selection, and clear errors for what cannot stream.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type StreamReferenceResult, type WeightSource, applyPromptKernel, loadPromptKernel, loadReferenceModel, projectEncoder,
  readPromptParams, referenceOfflineAllFrames, referenceStream, resolvePromptIndex, rnntGreedy, transducerModel,
} from '../../reference/index.js';
import { gv } from '../../support/gguf/values.js';
import { GgufValueType } from '../../support/gguf/types.js';
import { generateModel } from '../../support/model/generate.js';
import { STREAMING_FAMILIES } from '../../support/model/streaming.js';
import { openWeightSource } from '../../support/model/weights-source.js';
import { scratchDir } from '../gguf/tmp.js';
import { CLIP, familyModel } from './stream-fixtures.js';

/** Offline RNNT greedy from SOS over encoder frames [T][D], through the prompt kernel when an index is given. */
function greedyFromSos(
  w: WeightSource, frames: Float64Array, T: number, promptIndex: number | null = null,
): { ids: number[]; frames: number[]; margins: number[] } {
  const m = loadReferenceModel(w);
  if (m.joint === null || m.prediction === null || m.hparams.transducer === null) throw new Error('no transducer head');
  let input = frames;
  if (promptIndex !== null) {
    const params = readPromptParams(w);
    if (params === null) throw new Error('no prompt');
    input = applyPromptKernel(frames, T, loadPromptKernel(w, m.hparams.enc.dModel, params), promptIndex);
  }
  const tm = transducerModel(m.prediction, m.joint, projectEncoder(m.joint, input, T), m.hparams.blankId);
  const { tokens, steps } = rnntGreedy(tm, T, m.hparams.transducer.maxSymbols);
  return { ids: tokens.map((t) => t.id), frames: tokens.map((t) => t.frame), margins: steps.map((st) => st.margin) };
}

function contractOf(r: StreamReferenceResult): Pick<StreamReferenceResult, 'tokenIds' | 'tokenFrames' | 'chunks' | 'events'> {
  return { tokenIds: r.tokenIds, tokenFrames: r.tokenFrames, chunks: r.chunks, events: r.events };
}

for (const family of STREAMING_FAMILIES) {
  describe(`${family}: streaming transcript`, () => {
    const w = familyModel(family);
    const whole = referenceStream(w, CLIP);

    test('the contract: one chunk per step (empty ones too), ids and frames in order, events from special pieces', () => {
      const s = whole.schedule;
      const expectedChunks = 1 + Math.ceil((whole.melFrames - s.chunkMel[0]) / s.chunkMel[1]);
      assert.equal(whole.chunks.length, expectedChunks);
      assert.ok(whole.chunks.some((c) => c.tokenIds.length === 0), 'some steps emit nothing and are still listed');
      assert.deepEqual(whole.tokenIds, whole.chunks.flatMap((c) => c.tokenIds));
      assert.deepEqual(whole.tokenFrames, whole.chunks.flatMap((c) => c.tokenFrames));
      whole.chunkDetails.forEach((c, i) => {
        for (const f of whole.chunks[i].tokenFrames) assert.ok(f >= c.firstFrame && f < c.firstFrame + c.frames, `chunk ${i}: frame ${f}`);
      });
      for (let i = 1; i < whole.tokenFrames.length; i++) assert.ok(whole.tokenFrames[i] >= whole.tokenFrames[i - 1]);
      const pieces = loadReferenceModel(w).hparams.pieces;
      const specials = whole.tokenIds.map((id, i) => ({ piece: pieces[id], frame: whole.tokenFrames[i] })).filter((t) => t.piece.startsWith('<') && t.piece !== '<unk>');
      assert.deepEqual(whole.events.map((e) => e.frame), specials.map((t) => t.frame));
      assert.deepEqual(whole.events.map((e) => e.type), specials.map((t) => (t.piece === '<EOU>' ? 'eou' : t.piece === '<EOB>' ? 'eob' : 'lang')));
      assert.ok(!/<[^>]*>/.test(whole.text), `text without special pieces: ${whole.text}`);
      assert.ok(whole.tokenIds.length >= 10 && new Set(whole.tokenIds).size >= 5, `a non-trivial decode: ${whole.tokenIds.length} tokens`);
    });

    test('PCM block size does not matter (1 sample, odd sizes, 160 ms, all at once)', () => {
      for (const blockSamples of [1, 173, 2560, 8000]) {
        const r = referenceStream(w, CLIP, { blockSamples });
        assert.deepEqual(contractOf(r), contractOf(whole), `blocks of ${blockSamples}`);
        assert.deepEqual(r.steps, whole.steps);
        r.chunkDetails.forEach((c, i) => assert.deepEqual(c.encoder, whole.chunkDetails[i].encoder));
      }
    });

    test('an empty stream has no chunks', () => {
      const r = referenceStream(w, new Float32Array(0));
      assert.deepEqual(contractOf(r), { tokenIds: [], tokenFrames: [], chunks: [], events: [] });
    });

    test('the final partial chunk is processed: every mel frame is consumed', () => {
      const last = whole.chunkDetails[whole.chunkDetails.length - 1];
      assert.ok(last.melFrames < whole.schedule.chunkMel[1] && last.frames > 0, `last chunk ${last.melFrames} mel / ${last.frames} frames`);
      assert.equal(whole.chunkDetails.reduce((n, c) => n + c.melFrames, 0), whole.melFrames);
    });
  });
}

describe('decoder state across chunks', () => {
  test('without <EOU> the stream decodes like one greedy pass over the offline encoder (R ≥ 1, state carried)', () => {
    const w = familyModel('nemotron-en');
    const r = referenceStream(w, CLIP, { attContext: [70, 6] });
    assert.equal(r.events.length, 0);
    const offline = referenceOfflineAllFrames(w, CLIP, [70, 6]);
    const once = greedyFromSos(w, offline.out, offline.frames);
    assert.deepEqual(r.tokenIds, once.ids);
    assert.deepEqual(r.tokenFrames, once.frames);
  });

  test('<EOU>/<EOB>: the chunk after one decodes from SOS; other chunks continue the carried state', () => {
    const w = familyModel('eou');
    const r = referenceStream(w, CLIP);
    const pieces = loadReferenceModel(w).hparams.pieces;
    assert.ok(r.events.some((e) => e.type === 'eou'), 'the generated EOU model emits <EOU> on this clip');
    let resetsChecked = 0;
    let carriedDiffers = 0;
    for (let k = 0; k + 1 < r.chunkDetails.length; k++) {
      const c = r.chunkDetails[k];
      assert.equal(c.reset, c.tokens.some((t) => pieces[t.id] === '<EOU>' || pieces[t.id] === '<EOB>'), `chunk ${k}: reset flag`);
      const next = r.chunkDetails[k + 1];
      // Margins, not only tokens: a chunk of blanks decides them from the state it starts in.
      const fresh = greedyFromSos(w, next.encoder, next.frames);
      const actual = { ids: next.tokens.map((t) => t.id), margins: next.steps.map((st) => st.margin) };
      if (c.reset) {
        assert.deepEqual(actual, { ids: fresh.ids, margins: fresh.margins }, `chunk ${k + 1} after a reset decodes from SOS`);
        resetsChecked++;
      } else if (JSON.stringify(actual.ids) !== JSON.stringify(fresh.ids)) {
        carriedDiffers++;
      }
    }
    assert.ok(resetsChecked >= 1, 'at least one reset was followed by a chunk');
    assert.ok(carriedDiffers >= 1, 'the carried state matters somewhere (otherwise the reset test proves nothing)');
    const eouFrames = r.tokenIds.flatMap((id, i) => (pieces[id] === '<EOU>' ? [r.tokenFrames[i]] : []));
    assert.deepEqual(r.events.filter((e) => e.type === 'eou').map((e) => e.frame), eouFrames);
  });
});

describe('prompt kernel and language', () => {
  const w = familyModel('nemotron-3.5');

  test('languages map through the dictionary values; auto = default_lang; the prompt changes the decode', () => {
    const runs = new Map(['auto', 'en-US', 'de-DE', 'fr-FR'].map((language) => [language, referenceStream(w, CLIP, { language })]));
    assert.deepEqual([...runs.values()].map((r) => r.promptIndex), [0, 5, 2, 7]);
    const distinct = new Set([...runs.values()].map((r) => JSON.stringify(r.tokenIds)));
    assert.ok(distinct.size >= 3, `the language changes the tokens (${distinct.size} distinct decodes of 4)`);
    // Same encoder for every language: the prompt acts after the encoder only.
    const [a, b] = [runs.get('en-US'), runs.get('de-DE')];
    assert.ok(a && b);
    assert.deepEqual(a.chunkDetails.map((c) => c.encoder), b.chunkDetails.map((c) => c.encoder));
    const langEvents = [...runs.values()].flatMap((r) => r.events.filter((e) => e.type === 'lang'));
    assert.ok(langEvents.length >= 1, 'language tags are emitted and reported');
    for (const r of runs.values()) {
      const tags = r.tokenIds.filter((id) => /^<[a-z]{2}-[A-Z]{2}>$/.test(loadReferenceModel(w).hparams.pieces[id]));
      assert.equal(r.events.filter((e) => e.type === 'lang').length, tags.length);
      if (tags.length > 0) assert.equal(`<${r.detectedLanguage}>`, loadReferenceModel(w).hparams.pieces[tags[tags.length - 1]]);
    }
  });

  test('streamed prompt decode = offline encoder → prompt kernel → one greedy pass (R ≥ 1, no resets)', () => {
    for (const language of ['en-US', 'de-DE']) {
      const r = referenceStream(w, CLIP, { language, attContext: [56, 3] });
      const offline = referenceOfflineAllFrames(w, CLIP, [56, 3]);
      const once = greedyFromSos(w, offline.out, offline.frames, r.promptIndex);
      assert.deepEqual(r.tokenIds, once.ids, language);
      assert.deepEqual(r.tokenFrames, once.frames, language);
    }
  });

  test('auto: the dictionary\'s own auto entry, else default_lang\'s', () => {
    const dictionary = new Map([['en-US', 5], ['de-DE', 2]]);
    assert.equal(resolvePromptIndex({ numPrompts: 8, defaultLang: 'de-DE', dictionary }, 'auto'), 2);
    assert.equal(resolvePromptIndex({ numPrompts: 8, defaultLang: 'de-DE', dictionary: new Map([...dictionary, ['auto', 0]]) }, 'auto'), 0);
    assert.equal(resolvePromptIndex({ numPrompts: 8, defaultLang: 'de-DE', dictionary }, 'en-US'), 5);
  });

  test('unknown locales and languages on models without a prompt are clear errors', () => {
    assert.throws(() => referenceStream(w, CLIP, { language: 'xx-XX' }), /"xx-XX" is not one of the model's locales \(auto, en-US, de-DE, fr-FR, es-ES\)/);
    assert.throws(() => referenceStream(familyModel('eou'), CLIP, { language: 'en-US' }), /no language prompt/);
    assert.doesNotThrow(() => referenceStream(familyModel('eou'), CLIP.subarray(0, 1600), { language: 'auto' }));
  });
});

describe('what cannot stream', () => {
  const dir = scratchDir('stream-errors');

  test('a preset the model does not have, an offline model, keys that contradict the preset', () => {
    assert.throws(() => referenceStream(familyModel('nemotron-en'), CLIP, { attContext: [70, 2] }),
      /\[70,2\] is not one of the model's presets \[70,1\] \[70,0\] \[70,6\] \[70,13\]/);
    const offline = join(dir, 'offline.gguf');
    generateModel(offline, { arch: 'rnnt' });
    assert.throws(() => referenceStream(openWeightSource(offline), CLIP), /not a cache-aware streaming model/);
    const contradicting = join(dir, 'contradicting.gguf');
    generateModel(contradicting, { family: 'eou', extraKv: [{ key: 'parakeet.streaming.chunk_size', value: gv.arr(GgufValueType.INT32, [9, 15]) }] });
    assert.throws(() => referenceStream(openWeightSource(contradicting), CLIP), /chunk_size = \[9,15\], the preset implies \[9,16\]/);
  });
});
