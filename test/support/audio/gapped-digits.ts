// The held-out-style set for the silence guards: espeak-ng digit strings (a seed no other set uses) with
// 0.5–3 s of silence or noise between them — digital silence, white / pink / brown noise, hum, clicks or
// tones, each at a level a quiet room or a laptop fan has — as one 16 kHz stream, with the reference text
// and every word's time in the stream (espeak-ng's own word events). Seeded: the same samples every run.
import { ensureDigitsSet, prng, readWav16, type WordTiming } from './digits.js';
import { NON_SPEECH_KINDS, nonSpeech } from './non-speech.js';
import { RATE, concat } from './signals.js';

export interface GappedDigits {
  pcm: Float32Array;
  /** The strings, in order. */
  texts: string[];
  /** Every word, seconds in the stream. */
  words: WordTiming[];
  /** Each string's own clip, as espeak-ng spoke it (the reference point: the model on isolated strings). */
  strings: Float32Array[];
}

/** Gap levels (RMS): quiet room, fan, noisy office. */
const GAP_LEVELS = [0.003, 0.01, 0.03] as const;

/** `count` digit strings (6 voices in turn) with seeded gaps; `seed` picks the strings and the gaps. */
export function gappedDigits(count: number, seed = 0x6a99): GappedDigits {
  const set = ensureDigitsSet('gapped-digits', { seed, perVoice: Math.ceil(count / 6) });
  const items = set.items.slice(0, count);
  const random = prng(seed ^ 0x5a5a);
  const gap = (k: number): Float32Array => {
    const kind = NON_SPEECH_KINDS[Math.floor(random() * NON_SPEECH_KINDS.length)]!;
    const level = GAP_LEVELS[Math.floor(random() * GAP_LEVELS.length)]!;
    return nonSpeech(kind, 0.5 + random() * 2.5, level, seed + k);
  };
  const first = gap(0);
  const parts: Float32Array[] = [first];
  const words: WordTiming[] = [];
  const strings: Float32Array[] = [];
  let at = first.length;
  items.forEach((item, i) => {
    const speech = readWav16(item.wav).samples;
    strings.push(speech);
    for (const w of item.words) words.push({ text: w.text, start: w.start + at / RATE, end: w.end + at / RATE });
    const after = gap(i + 1);
    parts.push(speech, after);
    at += speech.length + after.length;
  });
  return { pcm: concat(...parts), texts: items.map((it) => it.text), words, strings };
}
