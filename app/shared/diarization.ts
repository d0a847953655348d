// From Sortformer's per-frame speaker activities to what transcripts show: speaker segments, a speaker
// per word, RTTM. Pure TypeScript, shared by the CLI, the main process and the renderer.

/** Activities [frames][nSpeakers] (speaker fastest), one frame every frameSec seconds. */
export interface ActivityFrames {
  readonly frameSec: number;
  readonly nSpeakers: number;
  readonly frames: number;
  readonly activities: ArrayLike<number>;
}

export interface SpeakerSegment {
  /** Speaker slot, 0-based (Sortformer sorts speakers by first appearance). */
  speaker: number;
  start: number;
  end: number;
}

/**
 * NeMo's segment post-processing of Sortformer's activities (PostProcessingParams of vad_utils.py), in
 * seconds: a segment opens where a speaker's activity rises above `onset` and closes where it falls below
 * `offset`, is widened by the pads, then segments shorter than minDurationOn are dropped and gaps shorter
 * than minDurationOff are filled (speech first, NeMo's filter_speech_first).
 */
export interface SegmentParams {
  onset: number;
  offset: number;
  padOnset: number;
  padOffset: number;
  minDurationOn: number;
  minDurationOff: number;
}

/** NeMo's PostProcessingParams defaults: hysteresis at 0.5 both ways, no padding, no filtering. */
export const NEMO_SEGMENT_PARAMS: Readonly<SegmentParams> = { onset: 0.5, offset: 0.5, padOnset: 0, padOffset: 0, minDurationOn: 0, minDurationOff: 0 };

/**
 * A diarizer file's segment parameters: its onset and offset thresholds (the only post-processing keys a
 * parakeet.cpp GGUF carries: parakeet.diar.onset_threshold / offset_threshold), NeMo's defaults for the rest.
 */
export function segmentParamsOf(info: { onsetThreshold: number; offsetThreshold: number }): SegmentParams {
  return { ...NEMO_SEGMENT_PARAMS, onset: info.onsetThreshold, offset: info.offsetThreshold };
}

/** NeMo evaluates the activities on a 10 ms grid (ts_vad_post_processing repeats each frame frameSec / 10 ms times). */
const UNIT_SEC = 0.01;

type Span = [start: number, end: number];

/** NeMo merge_overlap_segment: sorted by start; a span that starts at or before the previous one's end joins it. */
function mergeOverlapping(spans: Span[]): Span[] {
  const sorted = [...spans].sort((x, y) => x[0] - y[0]);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && last[1] >= span[0]) last[1] = span[1];
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

/** NeMo binarization over one speaker's activities, on the 10 ms grid: hysteresis, then the pads. */
function binarize(a: ActivityFrames, speaker: number, p: SegmentParams): Span[] {
  const perFrame = Math.max(1, Math.round(a.frameSec / UNIT_SEC));
  const units = a.frames * perFrame;
  const spans: Span[] = [];
  let speech = false;
  let start = 0;
  for (let i = 0; i < units; i++) {
    const v = a.activities[Math.floor(i / perFrame) * a.nSpeakers + speaker];
    if (speech && v < p.offset) {
      const span: Span = [Math.max(0, start - p.padOnset), i * UNIT_SEC + p.padOffset];
      if (span[1] > span[0]) spans.push(span);
      start = i * UNIT_SEC;
      speech = false;
    } else if (!speech && v > p.onset) {
      start = i * UNIT_SEC;
      speech = true;
    }
  }
  // As NeMo: a segment still open ends at the last 10 ms unit's start, (units − 1) · 10 ms.
  if (speech) spans.push([Math.max(0, start - p.padOnset), (units - 1) * UNIT_SEC + p.padOffset]);
  return mergeOverlapping(spans);
}

/** NeMo filtering with filter_speech_first: drop spans shorter than minDurationOn, then fill gaps shorter than minDurationOff. */
function filterSpans(spans: Span[], p: SegmentParams): Span[] {
  let kept = p.minDurationOn > 0 ? spans.filter(([s, e]) => e - s >= p.minDurationOn) : spans;
  if (p.minDurationOff > 0 && kept.length > 1) {
    const sorted = [...kept].sort((x, y) => x[0] - y[0]);
    const shortGaps: Span[] = [];
    for (let k = 1; k < sorted.length; k++) {
      const gap: Span = [sorted[k - 1][1], sorted[k][0]];
      if (gap[1] - gap[0] < p.minDurationOff) shortGaps.push(gap);
    }
    kept = mergeOverlapping([...sorted, ...shortGaps]);
  }
  return kept;
}

/**
 * Each speaker's segments (NeMo ts_vad_post_processing: binarization, then filtering), as [start, end)
 * seconds rounded to the millisecond, ordered by start then speaker.
 */
export function speakerSegments(a: ActivityFrames, params: SegmentParams = NEMO_SEGMENT_PARAMS): SpeakerSegment[] {
  const segments: SpeakerSegment[] = [];
  for (let s = 0; s < a.nSpeakers; s++) {
    for (const [start, end] of filterSpans(binarize(a, s, params), params)) segments.push({ speaker: s, start: round3(start), end: round3(end) });
  }
  return segments.sort((x, y) => x.start - y.start || x.speaker - y.speaker);
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * The speaker of a stretch of audio [start, end): the one with the largest summed activity over the frames
 * the stretch touches. Overlap is resolved by that sum (the speaker more active over the word wins; a tie
 * goes to the lower slot); a word between frames takes the nearest frame. −1 when there are no frames.
 */
export function dominantSpeaker(a: ActivityFrames, start: number, end: number): number {
  if (a.frames === 0 || a.nSpeakers === 0) return -1;
  let first = Math.floor(start / a.frameSec);
  let last = Math.ceil(end / a.frameSec) - 1;
  first = Math.min(Math.max(first, 0), a.frames - 1);
  last = Math.min(Math.max(last, first), a.frames - 1);
  let best = 0;
  let bestSum = -Infinity;
  for (let s = 0; s < a.nSpeakers; s++) {
    let sum = 0;
    for (let t = first; t <= last; t++) sum += a.activities[t * a.nSpeakers + s];
    if (sum > bestSum) {
      best = s;
      bestSum = sum;
    }
  }
  return best;
}

/** Words with a `speaker` slot each (see dominantSpeaker). */
export function attributeWords<W extends { start: number; end: number }>(words: readonly W[], a: ActivityFrames): (W & { speaker: number })[] {
  return words.map((w) => ({ ...w, speaker: dominantSpeaker(a, w.start, w.end) }));
}

/** The default name of a speaker slot ("Speaker 1" for slot 0). */
export function defaultSpeakerName(slot: number): string {
  return `Speaker ${slot + 1}`;
}

/** RTTM (NIST): one SPEAKER line per segment; names with spaces get underscores (the format splits on spaces). */
export function toRttm(segments: readonly { speaker: string; start: number; end: number }[], fileId: string): string {
  const id = fileId.replace(/\s+/g, '_') || 'audio';
  return segments
    .filter((s) => s.end > s.start)
    .map((s) => `SPEAKER ${id} 1 ${s.start.toFixed(3)} ${(s.end - s.start).toFixed(3)} <NA> <NA> ${s.speaker.replace(/\s+/g, '_')} <NA> <NA>`)
    .join('\n') + (segments.length ? '\n' : '');
}

/** Segments of an RTTM file (SPEAKER lines; others ignored). */
export function parseRttm(text: string): { file: string; speaker: string; start: number; end: number }[] {
  const out: { file: string; speaker: string; start: number; end: number }[] = [];
  for (const line of text.split(/\r?\n/)) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== 'SPEAKER' || f.length < 8) continue;
    const start = Number(f[3]);
    const duration = Number(f[4]);
    if (!Number.isFinite(start) || !Number.isFinite(duration)) throw new Error(`RTTM line has no start/duration: ${line}`);
    out.push({ file: f[1], speaker: f[7], start, end: start + duration });
  }
  return out;
}

/** Words grouped into turns of one speaker (a new turn at each change), for transcripts and exports. */
export function speakerTurns<W extends { text: string; start: number; end: number; speaker?: string }>(words: readonly W[]): { speaker: string; start: number; end: number; text: string }[] {
  const turns: { speaker: string; start: number; end: number; text: string }[] = [];
  for (const w of words) {
    const speaker = w.speaker ?? '';
    const last = turns.at(-1);
    if (last && last.speaker === speaker) {
      last.end = w.end;
      last.text += ` ${w.text.trim()}`;
    } else {
      turns.push({ speaker, start: w.start, end: w.end, text: w.text.trim() });
    }
  }
  return turns;
}

/** The speaker names of a meeting's words and segments, in order of first appearance. */
export function speakersOf(segments: readonly { speaker?: string; words: readonly { speaker?: string; start: number }[] }[]): string[] {
  const names: string[] = [];
  for (const s of segments) {
    for (const name of [s.speaker, ...s.words.map((w) => w.speaker)]) if (name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Renames a speaker in every segment and word of a meeting at once. Renaming onto a name already present
 * merges the two speakers (their words then share one name in search, copy and every export).
 */
export function renameSpeaker<S extends { speaker?: string; start: number; words: readonly { speaker?: string; start: number }[] }>(
  segments: readonly S[], from: string, to: string,
): S[] {
  const name = to.trim();
  if (!name) throw new Error('a speaker needs a name');
  const swap = <T extends { speaker?: string }>(x: T): T => (x.speaker === from ? { ...x, speaker: name } : x);
  return segments.map((s) => ({ ...swap(s), words: s.words.map(swap) }));
}
