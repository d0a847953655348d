// The dictation text options (app/shared/text-transform.ts): spoken
// punctuation and line breaks, the replacement list, and what happens to the
// word timestamps. Inputs are shaped like the engine's output: text = words
// joined by single spaces, marks glued to words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compileTransform, replacementProblem, segmentSeparator, SPOKEN_COMMANDS, type TextTransformSettings, type TimedWord,
} from '../../../app/shared/text-transform.js';

/** Words 0.5 s apart, each 0.4 s long, confidence falling slightly so each word is recognizable. */
function engine(text: string): { text: string; words: TimedWord[] } {
  const words = text.split(' ').map((w, i) => ({ text: w, start: i * 0.5, end: i * 0.5 + 0.4, confidence: 0.9 - i * 0.01 }));
  return { text, words };
}

const PUNCT: TextTransformSettings = { spokenPunctuation: true, replacements: [] };

test('with nothing on, text and words pass through unchanged', () => {
  const t = compileTransform({ spokenPunctuation: false, replacements: [] });
  assert.equal(t.active, false);
  const input = engine('hello comma world period');
  const out = t.apply(input);
  assert.deepEqual(out, { text: input.text, words: input.words, changed: false });
  assert.notEqual(out.words, input.words, 'a copy, so callers may mutate');
});

test('spoken punctuation glues each mark to the word before and capitalizes after a sentence end', () => {
  const out = compileTransform(PUNCT).apply(engine('hello comma how are you question mark i am fine full stop thanks exclamation point'));
  assert.equal(out.text, 'hello, how are you? I am fine. Thanks!');
  assert.equal(out.changed, true);
});

test('a command word keeps no word entry; the word it attaches to keeps its own times', () => {
  const input = engine('alpha comma beta period');
  const out = compileTransform(PUNCT).apply(input);
  assert.deepEqual(out.words.map((w) => w.text), ['alpha,', 'beta.']);
  assert.deepEqual(out.words.map((w) => [w.start, w.end, w.confidence]), [
    [input.words[0]!.start, input.words[0]!.end, input.words[0]!.confidence],
    [input.words[2]!.start, input.words[2]!.end, input.words[2]!.confidence],
  ]);
});

test('commands match whatever case and marks the model wrote, and a spoken mark replaces a written one', () => {
  const out = compileTransform(PUNCT).apply(engine('Hello, Comma. world Period.'));
  assert.equal(out.text, 'Hello, world.');
});

test('quotes and parentheses open onto the next word and close onto the previous one', () => {
  const out = compileTransform(PUNCT).apply(engine('he said open quote hi there close quote open parenthesis twice close parenthesis'));
  assert.equal(out.text, 'he said "hi there" (twice)');
  assert.deepEqual(out.words.map((w) => w.text), ['he', 'said', '"hi', 'there"', '(twice)']);
});

test('new line and new paragraph break the text without spaces around the break; no word is made for them', () => {
  const out = compileTransform(PUNCT).apply(engine('first line new line second line new paragraph third part'));
  assert.equal(out.text, 'first line\nsecond line\n\nThird part');
  assert.deepEqual(out.words.map((w) => w.text), ['first', 'line', 'second', 'line', 'Third', 'part']);
});

test('colon, semicolon and ellipsis', () => {
  assert.equal(compileTransform(PUNCT).apply(engine('note colon one semicolon two ellipsis')).text, 'note: one; two…');
});

test('a segment that starts with a command keeps the mark at its start (joined to the previous segment without a space)', () => {
  const out = compileTransform(PUNCT).apply(engine('comma and then'));
  assert.equal(out.text, ', and then');
  assert.equal(segmentSeparator('hello', out.text), '');
  assert.equal(segmentSeparator('hello', 'world'), ' ');
  assert.equal(segmentSeparator('line\n', 'next'), '');
  assert.equal(segmentSeparator('', 'first'), '');
});

test('spoken punctuation off leaves command words as words', () => {
  const out = compileTransform({ spokenPunctuation: false, replacements: [{ from: 'foo', to: 'bar' }] }).apply(engine('foo comma'));
  assert.equal(out.text, 'bar comma');
});

test('replacements: whole words, case-insensitive, longest first, marks around the match kept', () => {
  const t = compileTransform({
    spokenPunctuation: false,
    replacements: [{ from: 'parakeet', to: 'Budgie' }, { from: 'Parakeet Desktop', to: 'Parakeet Desktop' }],
  });
  assert.equal(t.apply(engine('i use parakeet desktop, and PARAKEET.')).text, 'i use Parakeet Desktop, and Budgie.');
  // Whole words only: a word that merely contains the phrase is not touched.
  assert.equal(t.apply(engine('parakeets fly')).text, 'parakeets fly');
});

test('a replacement with the same word count keeps each word\'s times; another count shares the span evenly', () => {
  const input = engine('gonna say parakeet desktop now');
  const same = compileTransform({ spokenPunctuation: false, replacements: [{ from: 'parakeet desktop', to: 'Parakeet Desktop' }] }).apply(input);
  assert.deepEqual(same.words.map((w) => [w.text, w.start, w.end]), input.words.map((w, i) => [['gonna', 'say', 'Parakeet', 'Desktop', 'now'][i], w.start, w.end]));

  const other = compileTransform({ spokenPunctuation: false, replacements: [{ from: 'gonna', to: 'going to' }, { from: 'parakeet desktop', to: 'PD' }] }).apply(input);
  assert.equal(other.text, 'going to say PD now');
  const [going, to, , pd] = other.words;
  assert.deepEqual([going!.start, going!.end, to!.start, to!.end], [0, 0.2, 0.2, 0.4]);
  assert.deepEqual([pd!.start, pd!.end], [input.words[2]!.start, input.words[3]!.end]);
  assert.equal(pd!.confidence, Math.min(input.words[2]!.confidence, input.words[3]!.confidence));
  // Words stay in time order and inside the segment.
  for (let i = 1; i < other.words.length; i += 1) assert.ok(other.words[i]!.start >= other.words[i - 1]!.end - 1e-12);
});

test('an empty replacement drops the words (fillers); a mark they carried stays on the word before', () => {
  const t = compileTransform({ spokenPunctuation: false, replacements: [{ from: 'um', to: '' }] });
  assert.equal(t.apply(engine('so um we go um.')).text, 'so we go.');
  assert.equal(t.apply(engine('um')).text, '');
});

test('replaced text is never read as a command, and replacements run before commands', () => {
  const t = compileTransform({ spokenPunctuation: true, replacements: [{ from: 'smiley', to: 'comma' }, { from: 'dot', to: 'period' }] });
  assert.equal(t.apply(engine('a smiley b comma c dot')).text, 'a comma b, c period');
});

test('words that do not spell the text: the text is transformed, the words are dropped (not made up)', () => {
  const out = compileTransform(PUNCT).apply({ text: 'hi comma you', words: [{ text: 'other', start: 0, end: 1, confidence: 1 }] });
  assert.equal(out.text, 'hi, you');
  assert.deepEqual(out.words, []);
});

test('the command list is unambiguous and every phrase is lower-case words', () => {
  const phrases = SPOKEN_COMMANDS.map((c) => c.phrase);
  assert.equal(new Set(phrases).size, phrases.length);
  for (const p of phrases) assert.match(p, /^[a-z]+( [a-z]+)*$/);
  for (const need of ['comma', 'period', 'full stop', 'question mark', 'exclamation mark', 'colon', 'semicolon', 'open quote', 'close quote', 'new line', 'new paragraph']) {
    assert.ok(phrases.includes(need), need);
  }
});

test('replacement lists are checked with a reason that names the entry', () => {
  assert.equal(replacementProblem([{ from: 'a b', to: 'AB' }, { from: 'um', to: '' }]), null);
  assert.match(replacementProblem([{ from: '  ', to: 'x' }])!.message, /Replacement 1: enter the spoken words/);
  assert.match(replacementProblem([{ from: 'x', to: 'y' }, { from: 'X.', to: 'z' }])!.message, /Replacement 2 repeats replacement 1/);
  assert.match(replacementProblem([{ from: 'a\tb', to: 'y' }])!.message, /control characters/);
  assert.match(replacementProblem([{ from: 'x', to: 'y'.repeat(201) }])!.message, /longer than 200/);
  assert.match(replacementProblem([{ from: 'a b c d e f g h i', to: 'y' }])!.message, /at most 8 spoken words/);
  assert.match(replacementProblem(Array.from({ length: 201 }, (_, i) => ({ from: `w${i}`, to: 'x' })))!.message, /At most 200/);
  assert.equal(replacementProblem([{ from: '!!', to: 'x' }])!.index, 0);
});

test('a long final stays fast (compiled once, linear in words)', () => {
  const t = compileTransform({
    spokenPunctuation: true,
    replacements: Array.from({ length: 200 }, (_, i) => ({ from: `word${i} tail`, to: `W${i}` })),
  });
  const input = engine(Array.from({ length: 2000 }, (_, i) => (i % 10 === 9 ? 'comma' : `word${i % 300}`)).join(' '));
  const t0 = performance.now();
  const out = t.apply(input);
  const ms = performance.now() - t0;
  assert.equal(out.words.length, 1800);
  assert.ok(ms < 2000, `took ${ms.toFixed(0)} ms`); // a guard against quadratic blow-ups, not a benchmark
});
