// Re-transcribing a recorded meeting from its WAVs with the model now loaded
// and the chosen decoder: every segment is decoded again at the cut points the
// live transcript used (read from its track's WAV by byte offset, so memory is
// one segment, not the track), in the engine's lane at file priority (live
// dictation still goes first); the entry's segments are then replaced
// atomically (header, tracks and markers kept). The same cuts mean the same
// audio per line, so only the model and decoder change what is heard.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DecoderName } from '../../../native/index.js';
import type { HistoryEntry, HistorySegment, MeetingAudioTrack } from '../../ipc/contract.js';
import type { DecodePriority } from '../engine/engine-host.js';
import type { EngineTranscribeOptions, EngineTranscript } from '../../engine-process/protocol.js';
import { CodedError } from '../../../types/errors.js';
import { TRACK_RATE } from './meeting-track.js';
import { WAV_HEADER_BYTES } from './wav-journal.js';

export interface RetranscribeDeps {
  engine: {
    transcribe(pcm: Float32Array, options: EngineTranscribeOptions, how: { priority: DecodePriority }): Promise<EngineTranscript | null>;
  };
  history: {
    get(id: string): Promise<HistoryEntry>;
    audioDirOf(id: string): string;
    replaceMeetingSegments(id: string, segments: HistorySegment[]): Promise<HistoryEntry>;
  };
}

/** Samples [start, end) of a track WAV (16-bit mono, 44-byte header, as wav-journal.ts writes it). */
async function readSamples(handle: fs.FileHandle, start: number, end: number): Promise<Float32Array> {
  const bytes = Buffer.alloc(Math.max(0, end - start) * 2);
  const { bytesRead } = await handle.read(bytes, 0, bytes.length, WAV_HEADER_BYTES + start * 2);
  const out = new Float32Array(Math.floor(bytesRead / 2));
  for (let i = 0; i < out.length; i += 1) out[i] = bytes.readInt16LE(2 * i) / 32767;
  return out;
}

export async function retranscribeMeeting(deps: RetranscribeDeps, entryId: string, decoder: DecoderName | 'auto'): Promise<HistoryEntry> {
  const entry = await deps.history.get(entryId);
  if (entry.kind !== 'meeting') throw new CodedError('BAD_ARGUMENT', `History entry ${entryId} is not a meeting; only meetings keep their audio.`);
  if (entry.live) throw new CodedError('BUSY', 'This meeting is still being recorded. Stop it first.');
  const tracks = new Map<string, MeetingAudioTrack>((entry.audio ?? []).map((t) => [t.speaker, t]));
  const handles = new Map<string, fs.FileHandle>();
  try {
    const segments: HistorySegment[] = [];
    for (const segment of entry.segments) {
      const track = segment.speaker ? tracks.get(segment.speaker) : undefined;
      if (!track) throw new CodedError('NOT_FOUND', `The audio of ${segment.speaker ?? 'a segment without a speaker'} is not in this meeting's folder.`);
      let handle = handles.get(track.file);
      if (!handle) {
        handle = await fs.open(path.join(deps.history.audioDirOf(entryId), track.file), 'r');
        handles.set(track.file, handle);
      }
      const start = Math.round((segment.start - track.offsetSec) * TRACK_RATE);
      const end = Math.round((segment.end - track.offsetSec) * TRACK_RATE);
      const pcm = await readSamples(handle, start, end);
      const result = pcm.length
        ? await deps.engine.transcribe(pcm, { sampleRate: TRACK_RATE, decoder: decoder === 'auto' ? undefined : decoder }, { priority: 'file' })
        : null;
      const offset = track.offsetSec + start / TRACK_RATE;
      segments.push({
        ...segment,
        text: result?.text.trim() ?? '',
        words: (result?.words ?? []).map((w) => ({ ...w, start: w.start + offset, end: w.end + offset })),
        devicesRan: result?.devicesRan ?? [],
      });
    }
    return await deps.history.replaceMeetingSegments(entryId, segments);
  } finally {
    for (const h of handles.values()) await h.close().catch(() => undefined);
  }
}
