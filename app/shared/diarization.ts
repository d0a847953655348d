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

/** NeMo's default post-processing of Sortformer (onset = offset = 0.5, no padding): a speaker speaks in frames above this. */
export const ACTIVITY_THRESHOLD = 0.5;

/** Each speaker's runs of frames above the threshold, as [start, end) seconds, ordered by start then speaker. */
export function speakerSegments(a: ActivityFrames, threshold = ACTIVITY_THRESHOLD): SpeakerSegment[] {
  const segments: SpeakerSegment[] = [];
  for (let s = 0; s < a.nSpeakers; s++) {
    let open = -1;
    for (let t = 0; t <= a.frames; t++) {
      const active = t < a.frames && a.activities[t * a.nSpeakers + s] > threshold;
      if (active && open < 0) open = t;
      if (!active && open >= 0) {
        segments.push({ speaker: s, start: round3(open * a.frameSec), end: round3(t * a.frameSec) });
        open = -1;
      }
    }
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
