// `parakeet diarize WAV --model SORTFORMER.gguf [--stream] [--json]` and the speakers of
// `parakeet transcribe … --diarizer SORTFORMER.gguf`.
import { Diarizer, type SpeakerActivities } from '../../native/diarizer.js';
import { attributeWords, defaultSpeakerName, segmentParamsOf, speakerSegments, type SegmentParams, type SpeakerSegment } from '../shared/diarization.js';

/** The JSON contract of `parakeet diarize --json`. */
export interface DiarizeJson {
  frames_sec: number;
  activities: number[][];
  segments: SpeakerSegment[];
}

export function diarizeJson(run: DiarizeRun): DiarizeJson {
  const a = run.activities;
  const activities: number[][] = [];
  for (let t = 0; t < a.frames; t++) activities.push(Array.from(a.activities.subarray(t * a.nSpeakers, (t + 1) * a.nSpeakers)));
  return { frames_sec: a.frameSec, activities, segments: speakerSegments(a, run.segmentParams) };
}

/** Segments as text lines: `start end Speaker k`. */
export function diarizeText(run: DiarizeRun): string {
  const lines = speakerSegments(run.activities, run.segmentParams).map((s) => `${s.start.toFixed(2)}\t${s.end.toFixed(2)}\t${defaultSpeakerName(s.speaker)}`);
  return lines.join('\n') || '(no speech)';
}

/** A diarizer's activities over a clip and the segment parameters they are cut with (the file's, then the caller's). */
export interface DiarizeRun {
  activities: SpeakerActivities;
  segmentParams: SegmentParams;
}

/**
 * Loads the diarizer and runs it over a clip read at its sample rate. Files run streaming unless `offline`:
 * bounded memory at any length, and the frames a live meeting gets (NeMo's diarize() streams this model too).
 * The segments use the file's thresholds (segmentParamsOf) with `segments` laid over them.
 */
export async function runDiarizer(
  path: string, readAudio: (sampleRate: number) => Promise<Float32Array>,
  options: { streaming: boolean; device?: string; threads?: number; segments?: Partial<SegmentParams> },
): Promise<DiarizeRun> {
  const diarizer = await Diarizer.load(path, { device: options.device, threads: options.threads });
  try {
    const info = diarizer.info();
    const pcm = await readAudio(info.sampleRate);
    const activities = await diarizer.diarize(pcm, { streaming: options.streaming });
    return { activities, segmentParams: { ...segmentParamsOf(info), ...options.segments } };
  } finally {
    diarizer.dispose();
  }
}

/** Transcribed words with the speaker slot each was attributed to (`speaker`: 0-based, as in the segments). */
export function wordsWithSpeakers<W extends { start: number; end: number }>(words: readonly W[], a: SpeakerActivities): (W & { speaker: number })[] {
  return attributeWords(words, a);
}
