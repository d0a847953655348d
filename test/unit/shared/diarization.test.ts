import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attributeWords, dominantSpeaker, NEMO_SEGMENT_PARAMS, parseRttm, segmentParamsOf, speakerSegments, toRttm } from '../../../app/shared/diarization.js';
import { cpWer, diarizationErrorRate } from '../../../app/shared/diarization-metrics.js';
import { toSrt, toVtt, exportTranscript } from '../../../app/shared/subtitles.js';
import type { HistorySegment } from '../../../app/ipc/contract.js';

// 6 frames of 80 ms, 2 speakers: speaker 0 in frames 0–2, speaker 1 in frames 2–5 (overlap in frame 2).
const frames = {
  frameSec: 0.08, nSpeakers: 2, frames: 6,
  activities: [0.9, 0.1, 0.8, 0.2, 0.7, 0.6, 0.2, 0.9, 0.1, 0.95, 0.3, 0.7],
};

test('segments are each speaker\'s runs of frames above 0.5 (NeMo\'s defaults), ordered by start', () => {
  assert.deepEqual(speakerSegments(frames), [
    { speaker: 0, start: 0, end: 0.24 },
    // Still speaking at the end: NeMo's binarization closes it at the last 10 ms unit's start, 6 · 8 − 1 units.
    { speaker: 1, start: 0.16, end: 0.47 },
  ]);
});

// Hand-computed cases of NeMo's ts_vad_post_processing (binarization on the 10 ms grid, then filtering):
// one speaker, 10 frames of 80 ms.
const one = { frameSec: 0.08, nSpeakers: 1, frames: 10, activities: [0.2, 0.7, 0.55, 0.45, 0.3, 0.8, 0.2, 0.2, 0.9, 0.9] };
const spans = (params = NEMO_SEGMENT_PARAMS): [number, number][] => speakerSegments(one, params).map((s) => [s.start, s.end]);
const hysteresis = { ...NEMO_SEGMENT_PARAMS, onset: 0.6, offset: 0.4 };

test('onset/offset hysteresis: a segment opens above onset and lasts until the activity falls below offset', () => {
  assert.deepEqual(spans(), [[0.08, 0.24], [0.4, 0.48], [0.64, 0.79]], '0.5 both ways: frame 3 (0.45) ends the first');
  assert.deepEqual(spans(hysteresis), [[0.08, 0.32], [0.4, 0.48], [0.64, 0.79]], '0.45 stays above offset 0.4; 0.3 ends it');
  assert.deepEqual(segmentParamsOf({ onsetThreshold: 0.6, offsetThreshold: 0.4 }), hysteresis, 'the file\'s thresholds, NeMo\'s defaults for the rest');
});

test('pads widen each segment (not before 0) and segments that come to overlap merge', () => {
  // [0.08 − 0.1 → 0, 0.32 + 0.05], [0.30, 0.53] overlap and merge; [0.54, 0.84] stays apart.
  assert.deepEqual(spans({ ...hysteresis, padOnset: 0.1, padOffset: 0.05 }), [[0, 0.53], [0.54, 0.84]]);
});

test('min_duration_on drops short segments first, then min_duration_off fills short gaps', () => {
  assert.deepEqual(spans({ ...hysteresis, minDurationOn: 0.1 }), [[0.08, 0.32], [0.64, 0.79]], '[0.40, 0.48] lasts 0.08 s');
  assert.deepEqual(spans({ ...hysteresis, minDurationOn: 0.1, minDurationOff: 0.4 }), [[0.08, 0.79]], 'the 0.32 s gap left is filled');
  assert.deepEqual(spans({ ...hysteresis, minDurationOn: 0.1, minDurationOff: 0.2 }), [[0.08, 0.32], [0.64, 0.79]], 'a 0.32 s gap stays at 0.2');
  assert.deepEqual(spans({ ...hysteresis, minDurationOff: 0.1 }), [[0.08, 0.48], [0.64, 0.79]], 'only the 0.08 s gap is filled');
});

test('a word goes to the speaker most active over its frames; in overlap the larger sum wins', () => {
  assert.equal(dominantSpeaker(frames, 0, 0.15), 0);
  assert.equal(dominantSpeaker(frames, 0.16, 0.24), 0, 'frame 2 alone: 0.7 against 0.6');
  assert.equal(dominantSpeaker(frames, 0.16, 0.4), 1, 'frames 2–4: 0.7+0.2+0.1 against 0.6+0.9+0.95');
  assert.equal(dominantSpeaker(frames, 9, 10), 1, 'past the end: the last frame');
  assert.deepEqual(attributeWords([{ text: 'hi', start: 0.3, end: 0.4 }], frames), [{ text: 'hi', start: 0.3, end: 0.4, speaker: 1 }]);
});

test('RTTM round-trips and names with spaces become one field', () => {
  const text = toRttm([{ speaker: 'Ana Lee', start: 1, end: 2.5 }], 'meeting 1');
  assert.equal(text, 'SPEAKER meeting_1 1 1.000 1.500 <NA> <NA> Ana_Lee <NA> <NA>\n');
  assert.deepEqual(parseRttm(text), [{ file: 'meeting_1', speaker: 'Ana_Lee', start: 1, end: 2.5 }]);
});

test('DER maps hypothesis speakers onto the reference and counts missed, false alarm and confusion', () => {
  const ref = [{ speaker: 'A', start: 0, end: 1 }, { speaker: 'B', start: 1, end: 2 }];
  assert.equal(diarizationErrorRate(ref, [{ speaker: 'x', start: 0, end: 1 }, { speaker: 'y', start: 1, end: 2 }]).der, 0);
  const swapped = diarizationErrorRate(ref, [{ speaker: 'x', start: 0, end: 1.5 }, { speaker: 'y', start: 1.5, end: 2 }]);
  assert.ok(Math.abs(swapped.confusion - 0.5) < 1e-9 && Math.abs(swapped.der - 0.25) < 1e-9, JSON.stringify(swapped));
  const missed = diarizationErrorRate(ref, [{ speaker: 'x', start: 0, end: 1 }]);
  assert.ok(Math.abs(missed.missed - 1) < 1e-9 && Math.abs(missed.der - 0.5) < 1e-9);
});

test('cpWER takes the best speaker permutation of the concatenated words', () => {
  const ref = new Map([['A', 'one two three'], ['B', 'four five']]);
  assert.equal(cpWer(ref, new Map([['s2', 'one two three'], ['s1', 'four five']])).cpwer, 0);
  const r = cpWer(ref, new Map([['s1', 'one two three four five']]));
  assert.equal(r.errors, 4, 'two inserted into A, two of B deleted');
  assert.equal(r.words, 5);
});

test('SRT, VTT and text exports carry the speaker and start a new cue when it changes', () => {
  const words = [
    { text: 'Hello', start: 0, end: 0.4, speaker: 'Ana' },
    { text: 'there.', start: 0.4, end: 0.8, speaker: 'Ana' },
    { text: 'Hi', start: 0.9, end: 1.2, speaker: 'Ben <2>' },
  ];
  assert.equal(toSrt(words), '1\n00:00:00,000 --> 00:00:00,800\nAna: Hello there.\n\n2\n00:00:00,900 --> 00:00:01,200\nBen <2>: Hi\n');
  assert.equal(toVtt(words), 'WEBVTT\n\n00:00:00.000 --> 00:00:00.800\n<v Ana>Hello there.\n\n00:00:00.900 --> 00:00:01.200\n<v Ben &lt;2&gt;>Hi\n');
  assert.equal(exportTranscript('txt', 'Hello there. Hi', words), 'Ana: Hello there.\n\nBen <2>: Hi\n');
  assert.equal(exportTranscript('txt', 'plain', [{ text: 'plain', start: 0, end: 1 }]), 'plain\n');
});

test('renaming a speaker reaches every word; renaming onto another name merges them, and RTTM follows', async () => {
  const { renameSpeaker, speakersOf } = await import('../../../app/shared/diarization.js');
  const { meetingExport } = await import('../../../app/shared/meeting-export.js');
  const w = (text: string, start: number, speaker: string) => ({ text, start, end: start + 0.4, confidence: 1, speaker });
  const segments: HistorySegment[] = [
    { segmentId: 1, start: 0, end: 2, text: 'hi all ok', devicesRan: [], speaker: 'Others', words: [w('hi', 0, 'Speaker 1'), w('all', 0.5, 'Speaker 1'), w('ok', 1.5, 'Speaker 2')] },
    { segmentId: 2, start: 3, end: 4, text: 'yes', devicesRan: [], speaker: 'You', words: [{ text: 'yes', start: 3, end: 3.4, confidence: 1 }] },
  ];
  assert.deepEqual(speakersOf(segments), ['Others', 'Speaker 1', 'Speaker 2', 'You']);
  const renamed = renameSpeaker(segments, 'Speaker 1', 'Ana');
  const transcript = { title: 'Weekly sync', createdAt: '2026-12-06T22:00:00Z', durationSec: 4, recovered: false, markers: [] };
  assert.equal(meetingExport('txt', { ...transcript, segments: renamed }), '[00:00] Ana: hi all\n[00:01] Speaker 2: ok\n[00:03] You: yes\n');
  const merged = renameSpeaker(renamed, 'Speaker 2', 'Ana');
  assert.equal(meetingExport('rttm', { ...transcript, segments: merged }),
    'SPEAKER Weekly_sync 1 0.000 1.900 <NA> <NA> Ana <NA> <NA>\nSPEAKER Weekly_sync 1 3.000 1.000 <NA> <NA> You <NA> <NA>\n');
  assert.match(meetingExport('vtt', { ...transcript, segments: merged }), /<v Ana>hi all/);
  assert.throws(() => renameSpeaker(segments, 'Speaker 1', '  '), /needs a name/);
});
