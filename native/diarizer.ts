// Speaker diarization on the engine: a Streaming Sortformer GGUF (parakeet.arch = diarization), per-frame
// activity probabilities for its speakers (4 for diar_streaming_sortformer_4spk-v2) every 80 ms.
import { native } from './index.js';
import type { DiarizerInfo, DiarizerLoadOptions, NativeDiarizer, NativeDiarizerStream, SpeakerActivities } from '../types/diarizer.js';

export type { DiarizerInfo, DiarizerLoadOptions, SpeakerActivities } from '../types/diarizer.js';

/**
 * One live source's speaker cache and FIFO: push audio as it arrives, get the frames that became final
 * (a chunk once its right context is in); finish() gives the rest. One call at a time (BUSY otherwise).
 */
export class DiarizerStream {
  /** @internal made by Diarizer.createStream */
  constructor(private readonly handle: NativeDiarizerStream) {}

  async push(pcm: Float32Array): Promise<SpeakerActivities> {
    return this.handle.push(pcm);
  }

  async finish(): Promise<SpeakerActivities> {
    return this.handle.finish();
  }

  dispose(): void {
    this.handle.dispose();
  }
}

export class Diarizer {
  private constructor(private readonly handle: NativeDiarizer) {}

  /** Loads on a worker thread; rejects MODEL_INVALID naming what the file is when it is not a Sortformer GGUF. */
  static async load(path: string, options: DiarizerLoadOptions = {}): Promise<Diarizer> {
    return new Diarizer(await native().loadDiarizer(path, { ...options }));
  }

  info(): DiarizerInfo {
    return this.handle.info();
  }

  /**
   * Mono PCM at info().sampleRate. streaming: NeMo's forward_streaming (chunks, speaker cache; any length,
   * the frames a live stream gives); otherwise one pass over the whole clip (minutes at most).
   */
  async diarize(pcm: Float32Array, options: { streaming: boolean }): Promise<SpeakerActivities> {
    return this.handle.diarize(pcm, options.streaming);
  }

  createStream(): DiarizerStream {
    return new DiarizerStream(this.handle.createStream());
  }

  dispose(): void {
    this.handle.dispose();
  }
}
