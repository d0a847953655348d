// Subtitle building (app/shared/subtitles.ts), used by the Files view's
// exports and the CLI: cue rules (pause, two lines of 42, 6 s, whole words),
// exact SRT and WebVTT text, and the edge cases (no words, zero-length words).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  exportTranscript, formatClock, layoutLines, toSrt, toVtt, wordsToCues, type TimedWord,
} from '../../../app/shared/subtitles.js';

const w = (text: string, start: number, end: number, confidence = 0.9): TimedWord => ({ text, start, end, confidence });

/** Two sentences with a 1 s pause between them. */
const SMALL: TimedWord[] = [
  w('Hello', 0, 0.4),
  w('world.', 0.45, 0.9),
  w('This', 1.9, 2.1),
  w('is', 2.15, 2.3),
  w('a', 2.32, 2.4),
  w('test.', 2.45, 3.0),
];

/** `count` words of `text`, each `dur` s long, `gap` s apart. */
function run(text: string, count: number, dur: number, gap: number, from = 0): TimedWord[] {
  return Array.from({ length: count }, (_, i) => w(text, from + i * (dur + gap), from + i * (dur + gap) + dur));
}

describe('SRT and WebVTT text', () => {
  test('a small hand-made word list gives exactly these files', () => {
    assert.equal(
      toSrt(SMALL),
      '1\n00:00:00,000 --> 00:00:00,900\nHello world.\n\n' +
        '2\n00:00:01,900 --> 00:00:03,000\nThis is a test.\n',
    );
    assert.equal(
      toVtt(SMALL),
      'WEBVTT\n\n' +
        '00:00:00.000 --> 00:00:00.900\nHello world.\n\n' +
        '00:00:01.900 --> 00:00:03.000\nThis is a test.\n',
    );
  });

  test('no words: an empty SRT and a VTT with its header only', () => {
    assert.equal(toSrt([]), '');
    assert.equal(toVtt([]), 'WEBVTT\n\n');
    assert.deepEqual(wordsToCues([w('  ', 0, 1)]), [], 'blank words make no cue');
  });

  test('clock: hours, rounding to the millisecond, SRT comma and VTT dot', () => {
    assert.equal(formatClock(3725.5, ','), '01:02:05,500');
    assert.equal(formatClock(59.9996, '.'), '00:01:00.000');
    assert.equal(formatClock(0.0014, ','), '00:00:00,001');
    assert.equal(formatClock(-1, '.'), '00:00:00.000');
  });

  test('two-line cues show both lines, broken where they are closest in length', () => {
    const text = 'The quick brown fox jumps over the lazy dog while the cat sleeps'.split(' ');
    const words = text.map((t, i) => w(t, i * 0.3, i * 0.3 + 0.25));
    assert.equal(
      toSrt(words),
      '1\n00:00:00,000 --> 00:00:03,850\nThe quick brown fox jumps over\nthe lazy dog while the cat sleeps\n',
    );
    assert.deepEqual(layoutLines(['short', 'line']), ['short line']);
  });

  test('txt and json exports', () => {
    assert.equal(exportTranscript('txt', 'Hello world.', SMALL), 'Hello world.\n');
    const json = JSON.parse(exportTranscript('json', 'Hello world. This is a test.', SMALL)) as { text: string; words: TimedWord[] };
    assert.equal(json.text, 'Hello world. This is a test.');
    assert.deepEqual(json.words, SMALL);
  });
});

describe('cue rules', () => {
  test('a pause of 0.6 s or more ends a cue; a shorter one does not', () => {
    const cues = wordsToCues([w('one', 0, 0.5), w('two', 1.0, 1.5), w('three', 2.1, 2.5), w('four', 3.2, 3.6)]);
    // 0.5 s between one and two: same cue; exactly 0.6 s before three and 0.7 s before four: new cues.
    assert.deepEqual(cues.map((c) => c.text), ['one two', 'three', 'four']);
    assert.deepEqual(cues.map((c) => [c.start, c.end]), [[0, 1.5], [2.1, 2.5], [3.2, 3.6]]);
  });

  test('a cue ends before it would exceed two lines of 42 characters', () => {
    // "word" ×8 = 39 characters, ×9 = 44: eight words per line, sixteen per cue.
    const words = run('word', 20, 0.2, 0.05);
    const cues = wordsToCues(words);
    assert.deepEqual(cues.map((c) => c.lines.length), [2, 1]);
    assert.deepEqual(cues[0].lines, ['word word word word word word word word', 'word word word word word word word word']);
    assert.equal(cues[1].text, 'word word word word');
    for (const cue of cues) for (const line of cue.lines) assert.ok(line.length <= 42, line);
    assert.equal(cues[1].start, words[16].start);
    assert.equal(cues.map((c) => c.text).join(' '), words.map((x) => x.text).join(' '));
  });

  test('a sentence end closes a cue that has been up for a second; a short one keeps going', () => {
    const words = [w('Yes.', 0, 0.3), w('We', 0.35, 0.5), w('went', 0.55, 0.8), w('home.', 0.85, 1.2), w('Then', 1.25, 1.5), w('"why?"', 1.55, 1.9), w('she', 1.95, 2.1), w('said', 2.15, 2.3)];
    assert.deepEqual(wordsToCues(words).map((c) => c.text), ['Yes. We went home.', 'Then "why?" she said']);
    assert.deepEqual(
      wordsToCues(words, { rules: { sentenceMinSec: 0.2 } }).map((c) => c.text),
      ['Yes.', 'We went home.', 'Then "why?"', 'she said'],
    );
  });

  test('a cue ends before it would last longer than 6 s', () => {
    // Words 0.9 s long, 0.1 s apart: the seventh would end at 6.9 s.
    const cues = wordsToCues(run('go', 9, 0.9, 0.1));
    assert.deepEqual(cues.map((c) => c.text.split(' ').length), [6, 3]);
    assert.ok(Math.abs(cues[0].end - 5.9) < 1e-9);
    assert.equal(cues[1].start, 6);
  });

  test('a word longer than a line is never split: it gets a cue of its own', () => {
    const long = 'Pneumonoultramicroscopicsilicovolcanoconiosis-related'; // 53 characters
    const cues = wordsToCues([w('before', 0, 0.3), w(long, 0.35, 1.5), w('after', 1.55, 1.8), w('end', 1.85, 2)]);
    assert.deepEqual(cues.map((c) => c.lines), [['before'], [long], ['after end']]);
  });

  test('words with start == end: a zero-length cue is shown briefly, never into the next cue or past the audio', () => {
    // A pause split: the zero-length cue gets 0.5 s.
    let cues = wordsToCues([w('was', 1.12, 1.12), w('there', 3, 3.4)]);
    assert.deepEqual(cues.map((c) => [c.start, c.end]), [[1.12, 1.62], [3, 3.4]]);
    // A length split (one 5-character line per cue): the next cue starts 0.2 s later, so it stops there.
    cues = wordsToCues([w('aaaa', 1, 1), w('bbbb', 1.2, 1.4)], { rules: { maxLineChars: 5, maxLines: 1 } });
    assert.deepEqual(cues.map((c) => [c.start, c.end]), [[1, 1.2], [1.2, 1.4]]);
    // The last cue stops at the end of the audio.
    cues = wordsToCues([w('end', 9.9, 9.9)], { endLimit: 10 });
    assert.ok(Math.abs(cues[0].end - 10) < 1e-9);
    // A cue with zero- and non-zero-length words keeps its words' span.
    cues = wordsToCues([w('a', 1, 1), w('b', 1, 1.3)]);
    assert.deepEqual(cues.map((c) => [c.start, c.end]), [[1, 1.3]]);
    assert.equal(toSrt([w('was', 1.12, 1.12)], { endLimit: 1.3 }), '1\n00:00:01,120 --> 00:00:01,300\nwas\n');
  });

  test('every word lands in exactly one cue, in order, with ordered times', () => {
    const words: TimedWord[] = [];
    let t = 0;
    for (let i = 0; i < 200; i++) {
      const text = 'x'.repeat(1 + ((i * 7) % 13));
      const dur = ((i * 3) % 5) * 0.1;
      words.push(w(text, t, t + dur));
      t += dur + (i % 17 === 0 ? 0.8 : 0.05);
    }
    const cues = wordsToCues(words, { endLimit: t });
    assert.equal(cues.map((c) => c.text).join(' '), words.map((x) => x.text).join(' '));
    for (let i = 0; i < cues.length; i++) {
      assert.ok(cues[i].end >= cues[i].start);
      assert.ok(cues[i].end - cues[i].start <= 6 + 1e-9);
      assert.ok(cues[i].lines.length <= 2);
      if (i > 0) assert.ok(cues[i].start >= cues[i - 1].end - 1e-9, `cue ${i} starts after cue ${i - 1} ends`);
    }
  });
});

describe('cues stay inside the audio (issue 11)', () => {
  test('a last word whose end runs past the audio: the cue ends at the end of the audio', () => {
    const words = [{ text: 'hello', start: 0.4, end: 0.9, confidence: 1 }, { text: 'world.', start: 1.0, end: 2.16, confidence: 1 }];
    const cues = wordsToCues(words, { endLimit: 2.0 });
    assert.equal(cues.at(-1)!.end, 2.0);
    assert.match(exportTranscript('srt', 'hello world.', words, 2.0), /00:00:00,400 --> 00:00:02,000/);
  });
});
