// SentencePiece-like vocabulary for random models: `<unk>` at id 0, single
// punctuation pieces, ▁-prefixed English words (U+2581 marks a word start),
// bare subword pieces, then generated syllable pieces until exactly V unique
// pieces exist. The blank (id V) has no piece.

export const WORD_START = '\u2581';

const WORDS = (
  'the and of to a in i it was he that is you for his with as had on her but not be at she my ' +
  'well don\'t wish see any more observed turning away eyes certainly very like old portrait ' +
  'they all this have from one by said were what we him them so there an no when your which would ' +
  'their if will up out been into who do could me time then now little some man more about did ' +
  'over can only know other down after made before two first must through like great where way ' +
  'back good should people much here never day too came come make say how just our again think ' +
  'still might long those us upon while right went take every thought own under house last ' +
  'night yes nothing found left place something another young world hand life always same head ' +
  'water sound speech model voice word light open ever may without give face far look away ' +
  'because each such once between being almost however enough heard asked together whole'
).split(' ');

const PUNCTUATION = ['.', ',', '?', "'"];

const SUBWORDS = (
  's ed ing er ly es t d e y n r a o re in al ion ic le en ar or an on at it st ri ro li la ter ' +
  'ous ment ness ful able ish est ive ity ous less ture ance ence age ant ent ism ist ize ward'
).split(' ');

const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');
const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'st', 'th', 'tr', 'pl'];
const NUCLEI = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou'];
const CODAS = ['', 'n', 'r', 's', 't', 'l', 'nd', 'ck'];

function* candidates(): Generator<string> {
  // Interleave so that even a small V mixes word pieces, punctuation and subwords.
  yield* WORDS.slice(0, 24).map((w) => WORD_START + w);
  yield* PUNCTUATION;
  yield* SUBWORDS.slice(0, 16);
  yield* WORDS.slice(24).map((w) => WORD_START + w);
  yield* SUBWORDS.slice(16);
  yield* LETTERS.map((l) => WORD_START + l);
  yield* LETTERS;
  for (const o of ONSETS) for (const n of NUCLEI) for (const c of CODAS) {
    yield WORD_START + o + n + c;
    yield o + n + c;
  }
  for (let i = 0; ; i++) yield `${WORD_START}w${i}`;
}

/**
 * Exactly `vocabSize` unique pieces; id 0 is `<unk>`; `special` pieces (e.g. `<EOU>`, `<EOB>`,
 * language tags) take the last ids in order, as in the streaming checkpoints.
 */
export function makeVocabulary(vocabSize: number, special: readonly string[] = []): string[] {
  if (!Number.isInteger(vocabSize) || vocabSize < 8) throw new Error(`vocabSize must be an integer >= 8, got ${vocabSize}`);
  if (special.length > vocabSize - 8) throw new Error(`${special.length} special pieces leave too few of ${vocabSize} ids`);
  const pieces = ['<unk>'];
  const seen = new Set([...pieces, ...special]);
  if (seen.size !== special.length + 1) throw new Error('special pieces must be unique and not <unk>');
  const regular = vocabSize - special.length;
  for (const p of candidates()) {
    if (pieces.length >= regular) break;
    if (seen.has(p)) continue;
    seen.add(p);
    pieces.push(p);
  }
  return [...pieces, ...special];
}
