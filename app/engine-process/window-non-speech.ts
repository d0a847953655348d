// A file window's non-speech for the vocabulary guard (issue 45's VAD gating, as a dictation segment's in
// sessions/non-speech.ts): the parts of a window planned from the trained VAD's segments that the VAD did not
// call speech — the padding added around each segment, a pause between two segments the window holds — less
// SPEECH_MARGIN_SEC on the speech side (the decoder's tokens trail the audio; a VAD's onset lags the sound).
// A window edge cut inside speech (a long segment split at its quietest point) gets no range there.
import type { SampleSegment } from '../shared/vad-segments.js';
import { SPEECH_MARGIN_SEC, type SecondsRange } from '../shared/non-speech.js';
import type { SampleRange } from '../../native/windows.js';

/** Non-speech of `window` (file samples at `rate`), in seconds from its start; `speech`: the VAD's unpadded segments, in order. */
export function windowNonSpeech(window: SampleRange, speech: readonly SampleSegment[], rate: number): SecondsRange[] {
  const margin = SPEECH_MARGIN_SEC * rate;
  const ranges: SecondsRange[] = [];
  const add = (from: number, to: number): void => {
    const start = Math.max(from, window.begin);
    const end = Math.min(to, window.end);
    if (end > start) ranges.push({ start: (start - window.begin) / rate, end: (end - window.begin) / rate });
  };
  // Where the current stretch without speech began (the window's start, or the last segment's end plus the margin).
  let quietFrom = window.begin;
  for (const s of speech) {
    if (s.end <= window.begin) continue;
    if (s.start >= window.end) break;
    add(quietFrom, s.start - margin);
    quietFrom = s.end + margin;
  }
  add(quietFrom, window.end);
  return ranges;
}
