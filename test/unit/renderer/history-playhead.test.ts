// The player's arithmetic: which word is heard at a meeting time (from its
// start until the next word of its line, never past the line's end; the
// later line where two overlap; nothing between lines or before a line's
// first word), and a source's audio time against meeting time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HistorySegment } from '../../../app/ipc/contract.js';
import { audioTimeOf, currentWordKey, meetingTimeOf } from '../../../renderer/views/history/playhead.js';

const seg = (start: number, end: number, words: Array<[string, number]>, speaker = 'You'): HistorySegment => ({
  segmentId: start, start, end, text: words.map(([t]) => t).join(' '), devicesRan: [], speaker,
  words: words.map(([text, s]) => ({ text, start: s, end: s + 0.2, confidence: 1 })),
});

test('the current word: from its start to the next word, inside its line; the later of two overlapping lines', () => {
  const segments = [seg(1, 3, [['one', 1.2], ['two', 2]]), seg(2.5, 5, [['nine', 3], ['ten', 4]], 'Others'), seg(6, 7, [])];
  assert.equal(currentWordKey(segments, null), null);
  assert.equal(currentWordKey(segments, 0.5), null, 'before any line');
  assert.equal(currentWordKey(segments, 1.1), null, "inside a line, before its first word");
  assert.equal(currentWordKey(segments, 1.2), '0:0');
  assert.equal(currentWordKey(segments, 1.9), '0:0', 'held until the next word starts');
  assert.equal(currentWordKey(segments, 2.6), '0:1', 'the later line has no word yet here');
  assert.equal(currentWordKey(segments, 3.1), '1:0', 'overlap: the later-starting line wins');
  assert.equal(currentWordKey(segments, 4.9), '1:1');
  assert.equal(currentWordKey(segments, 5.5), null, 'between lines');
  assert.equal(currentWordKey(segments, 6.5), null, 'a line without words');
});

test('source time and meeting time: a track starts at its offset; a seek before it plays from its start', () => {
  const track = { offsetSec: 1.5, durationSec: 10 };
  assert.equal(meetingTimeOf(track, 2), 3.5);
  assert.equal(audioTimeOf(track, 3.5), 2);
  assert.equal(audioTimeOf(track, 1), 0);
  assert.equal(audioTimeOf(track, 30), 10);
  assert.equal(audioTimeOf({ offsetSec: 0, durationSec: 5 }, 4.25), 4.25);
});
