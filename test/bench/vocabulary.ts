// `npm run bench:vocabulary`: what a custom vocabulary (phrase boosting in the
// greedy decoders) gains and what it costs, with the trained digits model.
//
// The set is made so that the model errs: voices it was not trained on, fast
// speech, pink noise. Three groups of digit strings:
//   with      a phrase of the vocabulary inside the string (phrase recall: the phrase is in the hypothesis)
//   without   no phrase (WER: the vocabulary must not hurt ordinary strings)
//   near      a phrase with one word changed (false-phrase rate: the phrase appears although not said)
// each decoded without and with the vocabulary (CTC: the digits model's only head), counting empty outputs.
// Then the no-harm figures on generated TDT and RNNT models (no weights to measure accuracy with): the output
// with an empty vocabulary is identical, a 1,000-phrase list neither crashes nor empties a result; and the
// decoder's time with 10 and 1,000 phrases next to none (the whole-call time too).
//
//   npm run bench:vocabulary [-- --per-group N] [--snr DB] [--weight W] [--threads N] [--json FILE]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Model, type DecoderName, type TranscribeResult } from '../../native/index.js';
import { vocabularyOptions, type VocabularyPhrase } from '../../app/shared/vocabulary.js';
import { errorRates, rate, sumCounts } from '../../app/shared/wer.js';
import {
  DIGIT_NAMES, DIGITS_MODEL, digitString, ensureNoisySet, ensureSpokenSet, prng, readWav16, REPO_ROOT, type DigitsItem, type Utterance,
} from '../support/audio/digits.js';
import { generateModel } from '../support/model/generate.js';
import type { Arch } from '../support/model/options.js';

const { values } = parseArgs({
  options: {
    'per-group': { type: 'string' }, snr: { type: 'string' }, weight: { type: 'string' }, threads: { type: 'string' }, json: { type: 'string' },
  },
});
const perGroup = Number(values['per-group'] ?? 40);
const snrDb = Number(values.snr ?? 5);
const weight = Number(values.weight ?? 1);
const threads = values.threads ? Number(values.threads) : undefined;
const work = join(REPO_ROOT, '.cache', 'bench-vocabulary');
mkdirSync(work, { recursive: true });

/** Voices the digits model never heard (it was trained on en-us, en, en-gb-scotland, en-gb-x-rp, en-029, en-us-nyc). */
const UNSEEN_VOICES = ['en-gb-x-gbclan', 'en-gb-x-gbcwmd'];
const FAST_RATES = [210, 230, 250];
const PHRASES: readonly string[] = ['four two seven', 'nine oh one', 'three three eight', 'six five two', 'seven one nine'];

type Group = 'with' | 'without' | 'near';
interface Planned extends Utterance {
  group: Group;
  /** The phrase said (with) or missed by one word (near). */
  phrase?: string;
}

const hasPhrase = (text: string, phrase: string): boolean => ` ${text} `.includes(` ${phrase} `);

/** A string with no vocabulary phrase in it. */
function fillerString(random: () => number, n: number): string {
  for (;;) {
    const s = digitString(random, n);
    if (!PHRASES.some((p) => hasPhrase(s, p))) return s;
  }
}

function plan(): Planned[] {
  const random = prng(0x0045_be9c);
  const out: Planned[] = [];
  const push = (group: Group, text: string, phrase?: string): void => {
    const voice = UNSEEN_VOICES[out.length % UNSEEN_VOICES.length];
    const rate = FAST_RATES[Math.floor(random() * FAST_RATES.length)];
    const pitch = 30 + Math.floor(random() * 41);
    out.push({ id: `${String(out.length).padStart(4, '0')}-${group}-${voice}-s${rate}`, text: text.trim(), voice, rate, pitch, group, phrase });
  };
  for (let i = 0; i < perGroup; i++) {
    const phrase = PHRASES[i % PHRASES.length];
    const around = (): string => fillerString(random, 1 + Math.floor(random() * 3));
    push('with', `${around()} ${phrase} ${around()}`, phrase);
    push('without', fillerString(random, 4 + Math.floor(random() * 4)));
    // One word of the phrase replaced by another digit: close to the phrase, not it.
    const words = phrase.split(' ');
    const at = Math.floor(random() * words.length);
    const others = DIGIT_NAMES.filter((d) => d !== words[at]);
    words[at] = others[Math.floor(random() * others.length)];
    const near = words.join(' ');
    const text = `${around()} ${near} ${around()}`;
    if (hasPhrase(text, phrase)) continue;
    push('near', text, phrase);
  }
  return out;
}

/** The planned utterances and their spoken (clean) set, cached. */
function benchSet(): { planned: Planned[]; clean: { dir: string; items: DigitsItem[] } } {
  const planned = plan();
  const clean = ensureSpokenSet('vocabulary-bench', { perGroup, v: 1 }, () => planned.map(({ group: _g, phrase: _p, ...u }) => u));
  return { planned, clean };
}

interface GroupScore {
  recall: number;
  wer: number;
  falsePhrase: number;
  empty: number;
}

async function decodeAll(model: Model, items: readonly DigitsItem[], options: object): Promise<TranscribeResult[]> {
  const results: TranscribeResult[] = [];
  for (const item of items) results.push(await model.transcribe(readWav16(item.wav).samples, { decoder: 'ctc', ...options }));
  return results;
}

function score(planned: readonly Planned[], results: readonly TranscribeResult[]): GroupScore {
  const idx = (g: Group) => planned.map((p, i) => ({ p, r: results[i] })).filter((x) => x.p.group === g);
  const withs = idx('with');
  const near = idx('near');
  const without = idx('without');
  return {
    recall: withs.filter((x) => hasPhrase(x.r.text, x.p.phrase!)).length / Math.max(1, withs.length),
    wer: rate(sumCounts(without.map((x) => errorRates(x.p.text, x.r.text).word))),
    falsePhrase: near.filter((x) => hasPhrase(x.r.text, x.p.phrase!)).length / Math.max(1, near.length),
    empty: results.filter((r) => r.text.trim() === '').length,
  };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

async function accuracy(): Promise<Record<string, GroupScore>> {
  const { planned, clean } = benchSet();
  const byId = new Map(planned.map((p) => [p.id, p]));
  const noisy = ensureNoisySet(clean, 'pink', snrDb);
  const order = noisy.items.map((it) => byId.get(it.id)!);
  const model = await Model.load(DIGITS_MODEL, { threads });
  try {
    const vocabulary: VocabularyPhrase[] = PHRASES.map((phrase) => ({ phrase, weight }));
    const plain = score(order, await decodeAll(model, noisy.items, {}));
    const boosted = score(order, await decodeAll(model, noisy.items, vocabularyOptions(vocabulary)));
    console.log(`digits model, CTC: ${order.length} utterances (unseen voices, ${FAST_RATES.join('/')} wpm, pink noise ${snrDb} dB), ` +
      `${PHRASES.length} phrases of weight ${weight}`);
    console.log('                     phrase recall   WER without phrases   false phrases (near misses)   empty outputs');
    for (const [name, s] of [['without vocabulary', plain], ['with vocabulary', boosted]] as const) {
      console.log(`${name.padEnd(20)} ${pct(s.recall).padStart(13)}   ${pct(s.wer).padStart(19)}   ${pct(s.falsePhrase).padStart(27)}   ${String(s.empty).padStart(13)}`);
    }
    return { plain, boosted };
  } finally {
    model.dispose();
  }
}

/** `count` digit phrases of 2–5 words (the 1,000-phrase list). */
function digitPhrases(count: number): VocabularyPhrase[] {
  const random = prng(0x0045_0100);
  return Array.from({ length: count }, () => ({ phrase: digitString(random, 2 + Math.floor(random() * 4)), weight: 1 }));
}

async function overhead(): Promise<Record<string, { decoderMs: number; totalMs: number }>> {
  const items = benchSet().clean.items.slice(0, 30);
  const model = await Model.load(DIGITS_MODEL, { threads });
  const out: Record<string, { decoderMs: number; totalMs: number }> = {};
  try {
    for (const [name, list] of [['none', []], ['10', digitPhrases(10)], ['1000', digitPhrases(1000)]] as const) {
      await decodeAll(model, items.slice(0, 1), vocabularyOptions(list));  // warm: the state compiles a new list once
      const results = await decodeAll(model, items, vocabularyOptions(list));
      out[name] = {
        decoderMs: results.reduce((s, r) => s + r.timings.decoderMs, 0),
        totalMs: results.reduce((s, r) => s + r.timings.totalMs, 0),
      };
    }
  } finally {
    model.dispose();
  }
  const base = out.none;
  console.log(`\ndecode overhead, digits model CTC, ${items.length} utterances (list compiled once per state, before these calls)`);
  for (const name of ['10', '1000']) {
    const o = out[name];
    console.log(`${name.padStart(5)} phrases: greedy decoder ${o.decoderMs.toFixed(1)} ms vs ${base.decoderMs.toFixed(1)} ms without; ` +
      `the difference is ${pct((o.decoderMs - base.decoderMs) / base.totalMs)} of the whole decode time (${base.totalMs.toFixed(0)} ms)`);
  }
  return out;
}

async function noHarm(): Promise<Record<string, { identical: boolean; emptied: number; ran: number }>> {
  const pcm = readWav16(benchSet().clean.items[0].wav).samples;
  const out: Record<string, { identical: boolean; emptied: number; ran: number }> = {};
  const cases: [Arch, DecoderName][] = [['tdt', 'tdt'], ['rnnt', 'rnnt'], ['hybrid_tdt_ctc', 'ctc']];
  console.log('\nno harm on generated models (random weights: identity and robustness only)');
  for (const [arch, decoder] of cases) {
    const description = generateModel(join(work, `${arch}.gguf`), { preset: 'tiny', arch, seed: 0x45 });
    const words = description.pieces.filter((p) => p.startsWith('\u2581') && p.length > 1).map((p) => p.slice(1));
    const random = prng(0x45);
    const phrases = Array.from({ length: 1000 }, () => ({
      phrase: Array.from({ length: 1 + Math.floor(random() * 3) }, () => words[Math.floor(random() * words.length)]).join(' '), weight: 1,
    }));
    const model = await Model.load(description.path, { threads });
    try {
      const plain = await model.transcribe(pcm, { decoder });
      const empty = await model.transcribe(pcm, { decoder, vocabulary: [] });
      const many = await model.transcribe(pcm, { decoder, ...vocabularyOptions(phrases) });
      const identical = JSON.stringify([plain.text, plain.tokens]) === JSON.stringify([empty.text, empty.tokens]);
      const emptied = plain.text.trim() !== '' && many.text.trim() === '' ? 1 : 0;
      out[`${arch}/${decoder}`] = { identical, emptied, ran: 1 };
      console.log(`${`${arch}/${decoder}`.padEnd(20)} empty vocabulary identical: ${identical ? 'yes' : 'NO'}; ` +
        `1,000 phrases: ran, ${emptied ? 'EMPTIED the result' : 'result not empty'} (${many.phrasesFired.length} phrases fired)`);
    } finally {
      model.dispose();
    }
  }
  return out;
}

const report = { accuracy: await accuracy(), noHarm: await noHarm(), overhead: await overhead() };
if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
