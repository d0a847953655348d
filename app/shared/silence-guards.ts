// Silence guards: two ways to keep words out of non-speech beyond the VAD's own cut, as parakeet.cpp
// offers them (`--vad-trim`, `--min-local-conf`):
//   edge trim         each VAD segment loses trimMs at both ends before it is decoded (the pad and the
//                     release tail are where noise next to speech gets in);
//   confidence floor  a word whose confidence (the engine's: the minimum over its tokens of the greedy
//                     token's probability, NeMo's "max_prob" measure aggregated with "min") is below the
//                     floor is dropped.
// A third guard is always on, in the VAD's own cut (vad-segments.ts): a segment Silero never reaches its
// confirm level in is not speech. The floor applies alike to files, dictation finals (and their partials)
// and meeting finals; the trim to files (a live segment's edges are its pre-roll and tail).
// `npm run bench:vad` measures them on the non-speech set and on speech (the "silence guards" table);
// the defaults follow what it showed. Pure: no engine, no clock.
import type { SampleSegment } from './vad-segments.js';

export interface SilenceGuards {
  /** Taken off both ends of every VAD segment (ms); 0: off. */
  edgeTrimMs: number;
  /** Words below this confidence are dropped (0..1); 0: off. */
  minWordConfidence: number;
}

/**
 * Off (bench:vad, silence guards table): with the trained VAD, the non-speech set gave 0 words for the
 * trained digits model and a generated one without any guard; on speech a trim only undid the pre-roll pad
 * (the same WER as a smaller pad), and a floor high enough to matter deleted speech (words in noise reach
 * 0.999 confidence without a VAD, so no floor separates them).
 */
export const DEFAULT_SILENCE_GUARDS: SilenceGuards = { edgeTrimMs: 0, minWordConfidence: 0 };

/** What the guards took away (Devices shows the sums): live stretches Silero was unsure of, words below the floor. */
export interface SilenceGuardCounts {
  /** Onsets long enough to open a segment whose windows never reached the confirm level (live sources). */
  unconfirmed: number;
  /** Words the confidence floor dropped from finals (files, dictation, meetings). */
  wordsDropped: number;
}

/** Each segment less `trimMs` at both ends; a segment the trim would empty is dropped. */
export function trimSegmentEdges(segments: readonly SampleSegment[], trimMs: number, sampleRate: number): SampleSegment[] {
  const trim = Math.round((Math.max(0, trimMs) / 1000) * sampleRate);
  if (trim === 0) return segments.map((s) => ({ ...s }));
  return segments.map((s) => ({ start: s.start + trim, end: s.end - trim })).filter((s) => s.end > s.start);
}

/** The words at or above the floor (all of them when the floor is 0). */
export function keepConfidentWords<W extends { confidence: number }>(words: readonly W[], floor: number): W[] {
  return floor > 0 ? words.filter((w) => w.confidence >= floor) : [...words];
}

/** A transcript with the floor applied: its text as it was when no word goes, else the kept words' text. */
export function keepConfidentTranscript<W extends { text: string; confidence: number }>(
  transcript: { text: string; words: readonly W[] }, floor: number,
): { text: string; words: W[] } {
  const words = keepConfidentWords(transcript.words, floor);
  return { text: words.length === transcript.words.length ? transcript.text : words.map((w) => w.text).join(' '), words };
}
