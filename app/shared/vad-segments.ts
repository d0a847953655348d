// Speech segments from per-chunk speech probabilities (a trained VAD such as Silero: one probability per
// 32 ms chunk). The rule is the one silero-vad's get_speech_timestamps describes: speech starts at a chunk
// ≥ threshold, ends at the first chunk below threshold − 0.15 that is followed by at least minSilenceMs
// without speech; segments shorter than minSpeechMs are dropped; each kept segment is widened by padMs on
// both sides, never into its neighbour (a gap narrower than two pads is split in the middle).
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
}

export const DEFAULT_VAD_SEGMENT_OPTIONS: VadSegmentOptions = { threshold: 0.5, minSpeechMs: 250, minSilenceMs: 100, padMs: 30 };

/** A segment in samples, [start, end). */
export interface SampleSegment {
  start: number;
  end: number;
}

/** The hysteresis gap below the threshold that ends speech (silero-vad's neg_threshold). */
export const RELEASE = 0.15;

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
  const release = Math.max(0, options.threshold - RELEASE);
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
  return padSegments(raw, pad, totalSamples);
}

function padSegments(segments: SampleSegment[], pad: number, totalSamples: number): SampleSegment[] {
  const out = segments.map((s) => ({ ...s }));
  for (let i = 0; i < out.length; i++) {
    const s = out[i]!;
    const next = out[i + 1];
    if (i === 0) s.start = Math.max(0, s.start - pad);
    if (next) {
      const gap = next.start - s.end;
      const share = gap < 2 * pad ? Math.floor(gap / 2) : pad;
      s.end += share;
      next.start = Math.max(s.end, next.start - (gap < 2 * pad ? gap - share : pad));
    } else {
      s.end = Math.min(totalSamples, s.end + pad);
    }
  }
  return out;
}

/** Seconds, rounded to the millisecond (the CLI's and the files' segment times). */
export function segmentSeconds(segments: readonly SampleSegment[], sampleRate: number): { start: number; end: number }[] {
  const sec = (n: number) => Math.round((n / sampleRate) * 1000) / 1000;
  return segments.map((s) => ({ start: sec(s.start), end: sec(s.end) }));
}
