// The engine process's speaker diarizer: a Streaming Sortformer GGUF (when one is chosen) and its live
// streams (a meeting's "Others" track). Each stream's pushes run one after another (a queue): activity
// frames come back in the order the audio went in.
import { Diarizer, type DiarizerStream, type SpeakerActivities } from '../../native/diarizer.js';
import { CodedError } from '../../types/errors.js';

/** What is loaded: the file and its frame geometry, or null (no diarizer: tracks keep their labels). */
export interface EngineDiarizerStatus {
  path: string;
  nSpeakers: number;
  frameSec: number;
}

export interface ActivityChunk {
  frameSec: number;
  nSpeakers: number;
  frames: number;
  activities: Float32Array;
}

interface OpenStream {
  stream: DiarizerStream;
  tail: Promise<unknown>;
}

const plain = (a: SpeakerActivities): ActivityChunk => ({ frameSec: a.frameSec, nSpeakers: a.nSpeakers, frames: a.frames, activities: a.activities });

export class EngineDiarizer {
  private model: Diarizer | null = null;
  private status: EngineDiarizerStatus | null = null;
  private readonly streams = new Map<number, OpenStream>();
  private nextStream = 1;

  /** Loads a Sortformer GGUF (null: none); the old model's streams end. Rejects MODEL_INVALID naming what the file is. */
  async load(path: string | null): Promise<EngineDiarizerStatus | null> {
    for (const { stream } of this.streams.values()) stream.dispose();
    this.streams.clear();
    this.model?.dispose();
    this.model = null;
    this.status = null;
    if (path === null) return null;
    this.model = await Diarizer.load(path, { threads: 1 });  // one thread: it runs beside the decodes, never ahead of them
    const info = this.model.info();
    this.status = { path, nSpeakers: info.nSpeakers, frameSec: info.frameSec };
    return this.status;
  }

  open(): { stream: number } {
    if (!this.model) throw new CodedError('NO_DIARIZER', 'no speaker diarizer is loaded; choose a Sortformer model in Settings');
    const id = this.nextStream++;
    this.streams.set(id, { stream: this.model.createStream(), tail: Promise.resolve() });
    return { stream: id };
  }

  /** Queued behind the stream's previous call. */
  push(id: number, pcm: Float32Array): Promise<ActivityChunk> {
    return this.queue(id, (s) => s.push(pcm));
  }

  /** The end of the stream's audio: its remaining frames; the stream is closed. */
  async finish(id: number): Promise<ActivityChunk> {
    const last = await this.queue(id, (s) => s.finish());
    this.close(id);
    return last;
  }

  close(id: number): null {
    const open = this.streams.get(id);
    if (open) void open.tail.finally(() => open.stream.dispose()).catch(() => undefined);
    this.streams.delete(id);
    return null;
  }

  private queue(id: number, work: (stream: DiarizerStream) => Promise<SpeakerActivities>): Promise<ActivityChunk> {
    const open = this.streams.get(id);
    if (!open) return Promise.reject(new CodedError('NOT_FOUND', `diarizer stream ${id} is not open`));
    const run = open.tail.catch(() => undefined).then(() => work(open.stream)).then(plain);
    open.tail = run;
    return run;
  }
}
