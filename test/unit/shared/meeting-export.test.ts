// A meeting's exports: speaker labels and times on every line or cue, both tracks in time order, markers
// in place, Markdown escaped, WebVTT voice spans, JSON with the segments.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { meetingExport, type MeetingTranscript } from '../../../app/shared/meeting-export.js';

const w = (text: string, start: number, end: number) => ({ text, start, end, confidence: 0.9 });
const MEETING: MeetingTranscript = {
  title: 'Meeting 2026-12-01 14:00',
  createdAt: '2026-12-01T14:00:00.000Z',
  durationSec: 75,
  recovered: false,
  // Journal order: Others' later final first.
  segments: [
    { segmentId: 1, start: 62, end: 64, text: 'four five', devicesRan: ['CPU'], words: [w('four', 62.2, 62.6), w('five', 63, 63.5)], speaker: 'Others' },
    { segmentId: 0, start: 1, end: 3, text: 'one two', devicesRan: ['CPU'], words: [w('one', 1.2, 1.5), w('two', 2, 2.4)], speaker: 'You' },
    { segmentId: 2, start: 70, end: 71, text: '', devicesRan: [], words: [], speaker: 'You' },
  ],
  markers: [{ at: 30, text: 'a *decision*' }],
};

test('txt: one line per final with time and speaker, by time, the marker in place; empty finals left out', () => {
  assert.equal(meetingExport('txt', MEETING), '[00:01] You: one two\n[00:30] -- a *decision*\n[01:02] Others: four five\n');
});

test('srt and vtt: cues from each final\'s words, labelled with the speaker, in time order', () => {
  assert.equal(meetingExport('srt', MEETING), '1\n00:00:01,200 --> 00:00:02,400\nYou: one two\n\n2\n00:01:02,200 --> 00:01:03,500\nOthers: four five\n');
  assert.equal(meetingExport('vtt', MEETING), 'WEBVTT\n\n00:00:01.200 --> 00:00:02.400\n<v You>one two\n\n00:01:02.200 --> 00:01:03.500\n<v Others>four five\n');
});

test('json and markdown carry speakers, times and markers', () => {
  const json = JSON.parse(meetingExport('json', MEETING)) as { segments: { speaker: string; start: number }[]; markers: unknown[] };
  assert.deepEqual(json.segments.map((s) => [s.speaker, s.start]), [['You', 1], ['Others', 62]]);
  assert.equal(json.markers.length, 1);
  const md = meetingExport('md', MEETING);
  assert.match(md, /^# Meeting 2026-12-01 14:00\n/);
  assert.match(md, /\*\*You\*\* \(00:01\): one two\n\n> \*\*Marker\*\* \(00:30\): a \\\*decision\\\*\n\n\*\*Others\*\* \(01:02\): four five\n$/);
});
