// The silence guards (app/shared/silence-guards.ts): the edge trim shortens every segment at both ends and
// drops one it would empty; the confidence floor drops the words below it; both are off at 0 (the defaults).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SILENCE_GUARDS, keepConfidentTranscript, keepConfidentWords, trimSegmentEdges } from '../../../app/shared/silence-guards.js';

test('edge trim: both ends of each segment, an emptied segment dropped, 0 keeps them as they are', () => {
  const segments = [{ start: 1600, end: 16000 }, { start: 20000, end: 21000 }, { start: 30000, end: 48000 }];
  // 50 ms = 800 samples off each end; the 1000-sample segment would end before it starts.
  assert.deepEqual(trimSegmentEdges(segments, 50, 16000), [{ start: 2400, end: 15200 }, { start: 30800, end: 47200 }]);
  assert.deepEqual(trimSegmentEdges(segments, 0, 16000), segments);
  assert.notEqual(trimSegmentEdges(segments, 0, 16000)[0], segments[0], 'a copy, not the caller\'s objects');
});

test('confidence floor: words below it dropped, at it kept, 0 keeps every word', () => {
  const words = [{ text: 'one', confidence: 0.95 }, { text: 'uh', confidence: 0.3 }, { text: 'two', confidence: 0.5 }];
  assert.deepEqual(keepConfidentWords(words, 0.5).map((w) => w.text), ['one', 'two']);
  assert.deepEqual(keepConfidentWords(words, 0), words);
  assert.deepEqual(DEFAULT_SILENCE_GUARDS, { edgeTrimMs: 0, minWordConfidence: 0 });
});

test('confidence floor on a transcript: the text is the kept words\' when one goes, the engine\'s own when none does', () => {
  const words = [{ text: 'one', confidence: 0.95 }, { text: 'uh', confidence: 0.3 }, { text: 'two', confidence: 0.5 }];
  assert.deepEqual(keepConfidentTranscript({ text: 'One, uh, two.', words }, 0.5), { text: 'one two', words: [words[0], words[2]] });
  assert.deepEqual(keepConfidentTranscript({ text: 'One, uh, two.', words }, 0.2), { text: 'One, uh, two.', words });
  assert.deepEqual(keepConfidentTranscript({ text: 'streamed text', words: [] }, 0.9), { text: 'streamed text', words: [] }, 'no word times: nothing to judge');
});
