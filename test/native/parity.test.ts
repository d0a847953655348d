// Parity with the independent float64 reference (test/reference): for every
// generated architecture (hybrids with both their transducer and CTC decoders),
// every audio length (0.3 s, 2 s, 10 s, 45 s) and every signal kind (espeak-ng
// speech, white noise, digital silence, a tone), chosen as a Latin square so each
// arch meets each length and each kind once without running all combinations.
//   mel:      max |engine − reference| ≤ 1e-4 (all frames)
//   encoder:  relative L2 ≤ 1e-4 over the valid frames (F32 weights, weightType 'f32': the exact
//             F32 kernel); the default 'auto' layout too, within its documented tolerance for an
//             F32 file (≤ 1e-3 here: 14-bit blocks on AVX512-VNNI CPUs, README "Weight types";
//             CTC log-probs within 5e-3 instead of 1e-3), with the same tokens
//   tokens:   identical (id, frame, duration) up to the reference's reliableTokenCount
//             (decisions with a top-2 margin > 1e-3); all of them when every decision is clear
// Plus: word/token timestamps and confidences against the reference on speech.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Model, type DecoderName, type TranscribeResult } from '../../native/index.js';
import { type ReferenceResult, referenceTranscribe } from '../reference/index.js';
import { generateModel } from '../support/model/generate.js';
import type { Arch } from '../support/model/options.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { noise, seconds, silence, speechSamples, tone } from './helpers/audio.js';
import { commonPrefix, describeTokens, fmt, maxAbs, maxAbsDiff, relL2 } from './helpers/compare.js';
import { ONE_THREAD } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('parity');
const MEL_TOL = 1e-4;
const ENC_TOL = 1e-4;
const AUTO_ENC_TOL = 1e-3;
const MARGIN = 1e-3;

type Kind = 'speech' | 'noise' | 'silence' | 'tone';
const signal: Record<Kind, (n: number) => Float32Array> = {
  speech: (n) => speechSamples(dir, n),
  noise: (n) => noise(n, 0.5, 12345),
  silence: (n) => silence(n),
  tone: (n) => tone(n, 440, 0.4),
};

/** arch × (length, kind): each row and each column holds every length and every kind once. */
const MATRIX: { arch: Arch; decoders: DecoderName[]; runs: [number, Kind][] }[] = [
  { arch: 'ctc', decoders: ['ctc'], runs: [[2, 'speech'], [45, 'noise'], [0.3, 'tone'], [10, 'silence']] },
  { arch: 'rnnt', decoders: ['rnnt'], runs: [[10, 'speech'], [0.3, 'noise'], [45, 'tone'], [2, 'silence']] },
  { arch: 'tdt', decoders: ['tdt'], runs: [[45, 'speech'], [2, 'noise'], [10, 'tone'], [0.3, 'silence']] },
  { arch: 'hybrid_tdt_ctc', decoders: ['tdt', 'ctc'], runs: [[0.3, 'speech'], [10, 'noise'], [2, 'tone'], [45, 'silence']] },
  { arch: 'hybrid_rnnt_ctc', decoders: ['rnnt', 'ctc'], runs: [[2, 'speech'], [10, 'noise']] },
];

/** Per arch: the F32 file on the exact F32 kernel ('f32') and as 'auto' places it. */
const models = new Map<Arch, { path: string; exact: Model; auto: Model }>();
async function modelFor(arch: Arch): Promise<{ path: string; exact: Model; auto: Model }> {
  let entry = models.get(arch);
  if (!entry) {
    const path = join(dir, `${arch}.gguf`);
    generateModel(path, { preset: 'tiny', arch, seed: 2024 });
    entry = { path, exact: await Model.load(path, { ...ONE_THREAD, weightType: 'f32' }), auto: await Model.load(path, ONE_THREAD) };
    models.set(arch, entry);
  }
  return entry;
}
after(() => {
  for (const { exact, auto } of models.values()) {
    exact.dispose();
    auto.dispose();
  }
});

interface Row {
  label: string;
  melMax: number;
  encRel: number;
  tokens: number;
  reliable: number;
  agreeing: number;
  allDecided: boolean;
}
const rows: Row[] = [];
const autoRows: Row[] = [];
const ctcConfidenceMismatches: string[] = [];
let ctcConfidenceCompared = 0;
after(() => {
  if (rows.length === 0) return;
  console.log('\nparity vs float64 reference (tiny F32 models):');
  console.log('case                                   mel max|d|  enc relL2  tokens reliable agree');
  for (const r of rows) {
    console.log(
      `${r.label.padEnd(38)} ${fmt(r.melMax).padStart(10)} ${fmt(r.encRel).padStart(10)} ${String(r.tokens).padStart(7)} ` +
        `${String(r.reliable).padStart(8)} ${String(r.agreeing).padStart(5)}${r.allDecided ? ' (all decided)' : ''}`,
    );
  }
  for (const r of autoRows) console.log(`${r.label.padEnd(38)} ${fmt(r.melMax).padStart(10)} ${fmt(r.encRel).padStart(10)} ${String(r.tokens).padStart(7)} ` +
    `${String(r.reliable).padStart(8)} ${String(r.agreeing).padStart(5)}`);
  const total = rows.reduce((a, r) => a + r.tokens, 0);
  const reliable = rows.reduce((a, r) => a + r.reliable, 0);
  if (autoRows.length > 0) console.log(`auto (the default layout; 14-bit blocks where the CPU has AVX512-VNNI): max encoder rel L2 ${fmt(Math.max(...autoRows.map((r) => r.encRel)))}`);
  console.log(`max mel diff ${fmt(Math.max(...rows.map((r) => r.melMax)))}, max encoder rel L2 ${fmt(Math.max(...rows.map((r) => r.encRel)))}, ` +
    `reliable tokens ${reliable}/${total}`);
});

function compareToReference(label: string, res: TranscribeResult, ref: ReferenceResult, kind: Kind, encTol = ENC_TOL): Row {
  const mel = res.mel;
  const enc = res.encoder;
  assert.ok(mel && enc, 'captureMel/captureEncoder returned the tensors');
  // mel: same shape, layout [M][T] time fastest, same valid length.
  assert.equal(mel.bins, ref.mel.nMels, `${label}: mel bins`);
  assert.equal(mel.frames, ref.mel.nFrames, `${label}: mel frames`);
  assert.equal(mel.validFrames, ref.mel.validFrames, `${label}: mel valid frames`);
  assert.equal(mel.data.length, ref.mel.mel.length);
  const melMax = maxAbsDiff(ref.mel.mel, mel.data);
  assert.ok(melMax <= MEL_TOL, `${label}: mel max |diff| ${fmt(melMax)} > ${MEL_TOL}`);
  if (kind === 'silence') {
    // Per-feature normalization of a constant: (x − mean)/(std + 1e-5) is rounding noise
    // (~1e-9 in float64 and in the engine), i.e. zero for all purposes.
    assert.ok(maxAbs(mel.data) <= 1e-6, `${label}: engine mel of silence ${fmt(maxAbs(mel.data))}`);
    assert.ok(maxAbs(ref.mel.mel) <= 1e-6, `${label}: reference mel of silence ${fmt(maxAbs(ref.mel.mel))}`);
  }
  // encoder: [T'][D], valid frames only.
  assert.equal(enc.dim, ref.encoder.dModel);
  assert.equal(enc.frames, ref.encoder.frames, `${label}: encoder frames`);
  assert.equal(enc.validFrames, ref.encoder.validFrames, `${label}: encoder valid frames`);
  const encRel = relL2(ref.encoder.out, enc.data, enc.validFrames * enc.dim);
  assert.ok(encRel <= encTol, `${label}: encoder relative L2 ${fmt(encRel)} > ${encTol}`);
  // tokens
  const allDecided = ref.steps.every((s) => s.margin > MARGIN);
  const agreeing = commonPrefix(ref.tokens, res.tokens);
  const detail = `\n  reference ${describeTokens(ref.tokens)}\n  engine    ${describeTokens(res.tokens)}`;
  assert.ok(agreeing >= ref.reliableTokens, `${label}: tokens differ at ${agreeing} < reliable ${ref.reliableTokens}${detail}`);
  if (allDecided) {
    assert.equal(res.tokens.length, ref.tokens.length, `${label}: every decision is clear, so the sequences must be equal${detail}`);
    assert.equal(res.text, ref.text, `${label}: text`);
  }
  for (let i = 0; i < ref.reliableTokens; i++) {
    const t = ref.tokens[i];
    const d = Math.abs(res.tokens[i].confidence - t.confidence);
    if (ref.decoder === 'ctc') {
      // Checked by its own test below (NeMo aggregates a CTC token's confidence over its repeated frames).
      if (d > 1e-3) {
        const run = ref.steps.filter((s) => s.frame >= t.frame && s.frame < t.frame + t.duration && s.token === t.id).length;
        ctcConfidenceMismatches.push(`${label}: token ${i} (id ${t.id}, frame ${t.frame}, ${run} frames) engine ${res.tokens[i].confidence.toFixed(4)} vs reference ${t.confidence.toFixed(4)}`);
      }
      ctcConfidenceCompared++;
    } else {
      assert.ok(d <= 1e-3, `${label}: token ${i} confidence ${res.tokens[i].confidence} vs ${t.confidence}`);
    }
  }
  return { label, melMax, encRel, tokens: ref.tokens.length, reliable: ref.reliableTokens, agreeing, allDecided };
}

describe('engine vs float64 reference', () => {
  for (const { arch, decoders, runs } of MATRIX) {
    for (const [sec, kind] of runs) {
      test(`${arch} · ${kind} ${sec} s · ${decoders.join('+')}`, async () => {
        const { path, exact, auto } = await modelFor(arch);
        const pcm = signal[kind](seconds(sec));
        const weights = openWeightSource(path);
        for (const [k, decoder] of decoders.entries()) {
          const label = `${arch}/${decoder} ${kind} ${sec}s`;
          const ref = referenceTranscribe(weights, pcm, { decoder });
          for (const [model, into, encTol, logTol, suffix] of [[exact, rows, ENC_TOL, 1e-3, ''], [auto, autoRows, AUTO_ENC_TOL, 5e-3, ' (auto)']] as const) {
            // The first decoder listed is the model's default: run it without naming it.
            const res = await model.transcribe(pcm, { decoder: k === 0 ? undefined : decoder, captureMel: true, captureEncoder: true, captureLogits: decoder === 'ctc' });
            assert.equal(res.decoder, decoder);
            assert.equal(res.windows.length, 1);
            assert.ok(Math.abs(res.durationSec - pcm.length / 16000) < 1e-9);
            into.push(compareToReference(label + suffix, res, ref, kind, encTol));
            if (decoder === 'ctc') {
              const lp = res.logProbs;
              assert.ok(lp && ref.logits, 'captureLogits returned CTC log-probs');
              assert.equal(lp.classes, model.info().vocabSize + 1);
              const n = (res.encoder?.validFrames ?? 0) * lp.classes;
              const d = maxAbsDiff(ref.logits, lp.data, n);
              assert.ok(d <= logTol, `${label}${suffix}: CTC log-prob max |diff| ${fmt(d)} over valid frames`);
            }
          }
        }
      });
    }
  }

  test('the comparison covered most tokens (reliable prefix ≥ 60% of all reference tokens)', () => {
    const expectedRuns = MATRIX.reduce((a, m) => a + m.runs.length * m.decoders.length, 0);
    assert.equal(rows.length, expectedRuns, 'every matrix case ran');
    assert.equal(autoRows.length, expectedRuns, 'every matrix case ran as auto too');
    const total = rows.reduce((a, r) => a + r.tokens, 0);
    const reliable = rows.reduce((a, r) => a + r.reliable, 0);
    assert.ok(total >= 200, `the matrix produced only ${total} tokens`);
    assert.ok(reliable >= 0.6 * total, `only ${reliable} of ${total} reference tokens are decided with margin > ${MARGIN}`);
    // Speech and noise are non-degenerate: they must emit tokens with clear decisions.
    for (const r of rows.filter((x) => /speech|noise/.test(x.label) && x.tokens >= 5)) {
      assert.ok(r.reliable >= 1, `${r.label}: no reliable token`);
    }
  });
});

describe('CTC token confidence', () => {
  // NeMo (ctc_decoding.compute_confidence, exclude_blank, aggregation 'min') aggregates a token's
  // confidence over every frame of its repeated run; the reference does the same. A token repeated
  // over several frames must not report the first frame's confidence only.
  test('equals the min of max_prob over the token\'s repeated frames (as the reference computes it)', () => {
    assert.ok(rows.length > 0, 'the matrix ran first');
    assert.ok(ctcConfidenceCompared >= 20, `only ${ctcConfidenceCompared} CTC tokens compared`);
    assert.deepEqual(ctcConfidenceMismatches, [], `${ctcConfidenceMismatches.length} of ${ctcConfidenceCompared} CTC token confidences differ`);
  });
});

describe('timestamps and confidences vs the reference (tiny TDT, speech)', () => {
  test('words and tokens: start/end within 1e-4 s, confidence within 1e-3, frameSec 0.08', async () => {
    const path = join(dir, 'tdt-timestamps.gguf');
    generateModel(path, { preset: 'tiny', arch: 'tdt', seed: 77 });
    const model = await Model.load(path, ONE_THREAD);
    const pcm = speechSamples(dir, seconds(12));
    const res = await model.transcribe(pcm);
    const ref = referenceTranscribe(openWeightSource(path), pcm);
    model.dispose();
    assert.equal(model.disposed, true);
    assert.equal(ref.frameSec, 0.08);
    assert.ok(ref.reliableTokens >= 10, `reliable tokens ${ref.reliableTokens}`);
    // Tokens decided clearly: same id/frame/duration, times frame·0.08 and (frame+duration)·0.08.
    const n = ref.reliableTokens;
    assert.ok(commonPrefix(ref.tokens, res.tokens) >= n);
    const pieces = ref.hparams.pieces;
    for (let i = 0; i < n; i++) {
      const t = res.tokens[i];
      const r = ref.tokens[i];
      assert.equal(t.piece, pieces[r.id], `token ${i} piece`);
      assert.ok(Math.abs(t.confidence - r.confidence) <= 1e-3, `token ${i} confidence ${t.confidence} vs ${r.confidence}`);
      assert.ok(Math.abs(t.start - r.frame * 0.08) <= 1e-4 || /^[.,?']$/.test(t.piece), `token ${i} start ${t.start} vs frame ${r.frame}`);
      assert.ok(t.end >= t.start);
    }
    // Words made only of clearly decided tokens (the word after the last reliable token may continue).
    let tokenCount = 0;
    let comparable = 0;
    const refWordTokens = wordsTokenCounts(pieces, ref.tokens.map((t) => t.id));
    for (let w = 0; w < ref.words.length && tokenCount + refWordTokens[w] < n; w++) {
      tokenCount += refWordTokens[w];
      const a = res.words[w];
      const b = ref.words[w];
      assert.ok(a, `engine is missing word ${w} (${b.text})`);
      assert.equal(a.text, b.text, `word ${w}`);
      assert.ok(Math.abs(a.start - b.start) <= 1e-4, `word ${w} '${b.text}' start ${a.start} vs ${b.start}`);
      assert.ok(Math.abs(a.end - b.end) <= 1e-4, `word ${w} '${b.text}' end ${a.end} vs ${b.end}`);
      assert.ok(Math.abs(a.confidence - b.confidence) <= 1e-3, `word ${w} '${b.text}' confidence ${a.confidence} vs ${b.confidence}`);
      comparable++;
    }
    console.log(`timestamps: ${comparable} words / ${n} tokens compared (engine ${res.words.length} words, reference ${ref.words.length})`);
    assert.ok(comparable >= 5, `only ${comparable} words could be compared`);
    if (ref.steps.every((s) => s.margin > MARGIN)) assert.equal(res.words.length, ref.words.length);
    // Monotonic, within the clip.
    for (let i = 0; i < res.words.length; i++) {
      const w = res.words[i];
      assert.ok(w.start <= w.end && w.start >= 0 && w.end <= res.durationSec + 0.08 * 4, `word ${i} ${w.start}–${w.end}`);
      if (i > 0) assert.ok(w.start >= res.words[i - 1].start, `word ${i} starts before word ${i - 1}`);
    }
  });
});

/** Tokens per word with the reference's grouping rule (▁ starts a word, punctuation glues to the previous word). */
function wordsTokenCounts(pieces: readonly string[], idsIn: readonly number[]): number[] {
  const counts: number[] = [];
  for (const id of idsIn) {
    const p = pieces[id];
    const punct = /^[.,?']$/.test(p);
    if (counts.length === 0 || (!punct && (p.startsWith('\u2581') || p === '<unk>'))) counts.push(1);
    else counts[counts.length - 1]++;
  }
  return counts;
}
