// Speech segments from per-chunk speech probabilities (a trained VAD such as Silero: one probability per
// 32 ms chunk). The rule is the one silero-vad's get_speech_timestamps describes: speech starts at a chunk
// ≥ threshold, ends at the first chunk below the release level (threshold − 0.15, at least 0.01:
// releaseLevel) that is followed by at least minSilenceMs without speech; segments shorter than minSpeechMs
// are dropped; each kept segment is widened by padMs on both sides (after it: tailMs when longer, a file
// job's SPEECH_TAIL_MS), never into its neighbour (a narrower gap is split in the pads' proportion).
// One rule of our own (a silence guard): a segment whose chunks never reach the confirm level (threshold
// + 0.15, the release gap mirrored) is not speech. Silero hovers around 0.5 on held tones and similar noise
// (bench:vad: a 320 ms stretch at 0.51–0.58 in the non-speech set gave the digits model a word), while its
// speech segments peak at 0.8 and above even with white or brown noise at 0 dB SNR.
// Pure: no engine, no clock.

export interface VadSegmentOptions {
  /** Probability at or above which a chunk is speech (0.5). */
  threshold: number;
  /** Shorter speech is dropped (250 ms). */
  minSpeechMs: number;
  /** Silence must last this long to end a segment (100 ms). */
  minSilenceMs: number;
  /** Added before and after each segment (30 ms). */
  padMs: number;
  /**
   * Kept after each segment's speech instead, when longer than the pad (a file job: SPEECH_TAIL_MS, as live
   * segments keep); absent: the pad, Silero's symmetric rule (the CLI's segments).
   */
  tailMs?: number;
}

export const DEFAULT_VAD_SEGMENT_OPTIONS: VadSegmentOptions = { threshold: 0.5, minSpeechMs: 250, minSilenceMs: 100, padMs: 30 };

/**
 * What a segment Silero cut keeps after its speech, live (the Segmenter's tail: the start of the closing
 * pause) and in files alike. The digits model decoded strings cut 30 ms after their speech worse than with
 * some of the silence they were recorded with (bench:vad, held-out WER: files 5.3 % with the 30 ms pad, 3.8 %
 * with 130 ms, 4.3 % with 200 or 300; live 3.8 % with 130 ms; bench-results/vad-context-margin.txt). Real
 * audio, not digital silence appended: 300 ms or more of zeros after a segment cost that model many words.
 */
export const SPEECH_TAIL_MS = 130;

/** A segment in samples, [start, end). */
export interface SampleSegment {
  start: number;
  end: number;
}

/** The hysteresis gap below the threshold that ends speech (silero-vad's neg_threshold). */
export const RELEASE = 0.15;

/** The lowest release level (silero-vad's max(threshold − 0.15, 0.01)). */
const MIN_RELEASE = 0.01;

/**
 * Below this a chunk ends speech (silero-vad's neg_threshold). Without the floor a threshold of 0.15 or less
 * gave a level of 0 or below that no probability is under: speech never ended, and a file's first word ran
 * to its end (live: to the length cap), silence decoded. Never above the threshold itself (only a threshold
 * under 0.01 would put it there): a chunk that would start speech never ends it.
 */
export function releaseLevel(threshold: number): number {
  return Math.min(threshold, Math.max(threshold - RELEASE, MIN_RELEASE));
}

/** A segment is speech only if some chunk reaches this (the release gap above the threshold). */
export function confirmLevel(threshold: number): number {
  return Math.max(threshold, Math.min(0.99, threshold + RELEASE));
}

/**
 * Speech segments, in samples, of audio of `totalSamples` whose chunk i (of `chunkSamples`) has speech
 * probability probs[i].
 */
export function speechSegments(
  probs: ArrayLike<number>, chunkSamples: number, sampleRate: number, totalSamples: number,
  options: VadSegmentOptions = DEFAULT_VAD_SEGMENT_OPTIONS,
): SampleSegment[] {
  const minSpeech = (options.minSpeechMs / 1000) * sampleRate;
  const minSilence = (options.minSilenceMs / 1000) * sampleRate;
  const pad = Math.round((options.padMs / 1000) * sampleRate);
  const release = releaseLevel(options.threshold);
  const confirm = confirmLevel(options.threshold);
  const raw: SampleSegment[] = [];
  let start = -1;
  let silenceFrom = -1;
  let peak = 0;
  for (let i = 0; i < probs.length; i++) {
    const p = probs[i]!;
    const at = i * chunkSamples;
    if (p >= options.threshold) {
      silenceFrom = -1;
      if (start < 0) start = at;
      peak = Math.max(peak, p);
      continue;
    }
    if (start < 0 || p >= release) continue;
    if (silenceFrom < 0) silenceFrom = at;
    if (at + chunkSamples - silenceFrom < minSilence) continue;
    if (silenceFrom - start >= minSpeech && peak >= confirm) raw.push({ start, end: silenceFrom });
    start = -1;
    silenceFrom = -1;
    peak = 0;
  }
  if (start >= 0) {
    const end = silenceFrom >= 0 ? silenceFrom : totalSamples;
    if (end - start >= minSpeech && peak >= confirm) raw.push({ start, end: Math.min(end, totalSamples) });
  }
  const tail = Math.max(pad, Math.round(((options.tailMs ?? 0) / 1000) * sampleRate));
  return padSegments(raw, pad, tail, totalSamples);
}

/** `lead` before and `tail` after each segment; a narrower gap is shared in their proportion. */
function padSegments(segments: SampleSegment[], lead: number, tail: number, totalSamples: number): SampleSegment[] {
  const out = segments.map((s) => ({ ...s }));
  for (let i = 0; i < out.length; i++) {
    const s = out[i]!;
    const next = out[i + 1];
    if (i === 0) s.start = Math.max(0, s.start - lead);
    if (next) {
      const gap = next.start - s.end;
      const narrow = gap < lead + tail;
      const share = narrow ? Math.floor((gap * tail) / Math.max(1, lead + tail)) : tail;
      s.end += share;
      next.start = Math.max(s.end, next.start - (narrow ? gap - share : lead));
    } else {
      s.end = Math.min(totalSamples, s.end + tail);
    }
  }
  return out;
}

/** Seconds, rounded to the millisecond (the CLI's and the files' segment times). */
export function segmentSeconds(segments: readonly SampleSegment[], sampleRate: number): { start: number; end: number }[] {
  const sec = (n: number) => Math.round((n / sampleRate) * 1000) / 1000;
  return segments.map((s) => ({ start: sec(s.start), end: sec(s.end) }));
}
