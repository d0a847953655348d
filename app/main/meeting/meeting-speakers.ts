// Who speaks on a meeting's "Others" track: the track's audio goes to a live diarizer stream (Sortformer in
// the engine) as it is recorded; every final's words get the speaker most active over their frames (shared/
// diarization.ts) from the frames known by then; at the end of the meeting the stream is finished and every
// word is attributed again from the whole track's frames (the refinement History keeps).
//
// Frames arrive a chunk at a time (the model's chunk_len + right context: 15 s for 4spk-v2), so a live
// word past the last frame takes the nearest one until the refinement.
import { dominantSpeaker, defaultSpeakerName, type ActivityFrames } from '../../shared/diarization.js';
import type { Word } from '../../ipc/contract.js';

export interface DiarizerChunk {
  frameSec: number;
  nSpeakers: number;
  frames: number;
  activities: Float32Array;
}

/** The engine's live diarizer stream (EngineHost.diarizerStream). */
export interface SessionDiarizer {
  push(pcm: Float32Array): Promise<DiarizerChunk>;
  finish(): Promise<DiarizerChunk>;
  close(): void;
}

/** A speaker slot's name on a diarized microphone track (an in-room meeting): "Room 1" …. */
export function roomSpeakerName(slot: number): string {
  return `Room ${slot + 1}`;
}

export class MeetingSpeakers {
  private frameSec = 0.08;
  private nSpeakers = 0;
  private values: number[] = [];
  private tail: Promise<unknown> = Promise.resolve();
  private failed: string | null = null;

  /** `nameOf`: a speaker slot's name on this track ("Speaker k" on "Others", "Room k" on a diarized microphone). */
  constructor(
    private readonly stream: SessionDiarizer,
    private readonly onProblem: (message: string) => void,
    readonly nameOf: (slot: number) => string = defaultSpeakerName,
  ) {}

  /** The track's audio at 16 kHz, in order (queued: the stream takes one call at a time). */
  push(pcm: Float32Array): void {
    if (this.failed !== null) return;
    const copy = Float32Array.from(pcm);
    this.tail = this.tail.then(() => this.stream.push(copy)).then((chunk) => this.add(chunk)).catch((error: unknown) => this.fail(error));
  }

  /** Resolves once every push so far has been through the stream (a file's reader waits on it: one block in memory at a time). */
  async settled(): Promise<void> {
    await this.tail;
  }

  /** Words (track seconds) with the speaker of their frames so far ("Speaker k"); unchanged without frames. */
  attribute(words: readonly Word[]): Word[] {
    const frames = this.frames();
    if (frames.frames === 0) return [...words];
    return words.map((w) => ({ ...w, speaker: this.nameOf(dominantSpeaker(frames, w.start, w.end)) }));
  }

  /** Ends the stream (its last frames) after every queued push; the frames of the whole track. */
  async finish(): Promise<ActivityFrames> {
    await this.tail;
    if (this.failed === null) {
      try {
        this.add(await this.stream.finish());
      } catch (error) {
        this.fail(error);
      }
    } else {
      this.stream.close();
    }
    return this.frames();
  }

  /** A meeting discarded or aborted: the stream is dropped, nothing more is computed. */
  close(): void {
    this.failed ??= 'closed';
    void this.tail.finally(() => this.stream.close());
  }

  private frames(): ActivityFrames {
    return { frameSec: this.frameSec, nSpeakers: this.nSpeakers, frames: this.nSpeakers > 0 ? this.values.length / this.nSpeakers : 0, activities: this.values };
  }

  private add(chunk: DiarizerChunk): void {
    this.frameSec = chunk.frameSec;
    this.nSpeakers = chunk.nSpeakers;
    for (const v of chunk.activities) this.values.push(v);
  }

  private fail(error: unknown): void {
    if (this.failed !== null) return;
    this.failed = error instanceof Error ? error.message : String(error);
    this.onProblem(`Speakers are not told apart for the rest of this meeting: the diarizer failed (${this.failed}).`);
  }
}
