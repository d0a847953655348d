// The parts of a dictation segment in which its VAD heard no speech: the pre-roll kept before the
// onset and the closing pause kept after the last voiced window. The vocabulary buys no decision there
// (TranscribeOptions.nonSpeech; issue 45's VAD gating), less a margin on the speech side: the decoder's
// tokens trail the audio, and a VAD's onset lags the first sound.
import { vocabularyOptions, type VocabularyPhrase } from './vocabulary.js';

export const SPEECH_MARGIN_SEC = 0.2;

export interface SecondsRange {
  start: number;
  end: number;
}

/**
 * Non-speech of the decoded samples [start, end) (session sample positions at `rate`), in seconds from
 * `start`. `speechEnd`: the end of the last voiced window, null while the segment is open.
 */
export function segmentNonSpeech(start: number, onset: number, speechEnd: number | null, end: number, rate: number): SecondsRange[] {
  const length = (end - start) / rate;
  const ranges: SecondsRange[] = [];
  const lead = Math.min(length, (onset - start) / rate - SPEECH_MARGIN_SEC);
  if (lead > 0) ranges.push({ start: 0, end: lead });
  if (speechEnd !== null) {
    const tail = (speechEnd - start) / rate + SPEECH_MARGIN_SEC;
    if (tail < length) ranges.push({ start: Math.max(0, tail), end: length });
  }
  return ranges;
}

/**
 * The vocabulary options of a decode (or stream) of a segment's audio, with the segment's non-speech when
 * there is a vocabulary to guard (`ranges` is only evaluated then): what dictation and meeting tracks send.
 */
export function guardedVocabulary(
  phrases: readonly VocabularyPhrase[], ranges: () => SecondsRange[],
): ReturnType<typeof vocabularyOptions> & { nonSpeech?: SecondsRange[] } {
  const vocabulary = vocabularyOptions(phrases);
  const nonSpeech = vocabulary.vocabulary ? ranges() : [];
  return { ...vocabulary, ...(nonSpeech.length ? { nonSpeech } : {}) };
}
