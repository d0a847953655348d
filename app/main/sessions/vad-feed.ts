// Feeds a live source's audio to the engine's trained VAD (Silero) and its verdicts to the Segmenter
// (detector 'external'), in order. The verdicts arrive after the audio (an engine round trip, about a
// millisecond per 32 ms chunk), so the segment events they cause name samples already stored. If the VAD
// stream fails (the engine restarted), the source goes on with the energy VAD from its first undecided
// window, and says so once.
import type { SegmentEvent, Segmenter } from './segmenter.js';

/**
 * A trained VAD's stream on the engine (Silero; EngineHost.vadStream): one speech probability per
 * 512-sample chunk (16 kHz) completed by each push, in push order.
 */
export interface SessionVad {
  push(pcm: Float32Array): Promise<Float32Array>;
  close(): void;
}

export class VadFeed {
  /** Resolves once every pushed sample is decided. */
  private queue: Promise<void> = Promise.resolve();
  private ended = false;

  constructor(
    private readonly segmenter: Segmenter,
    private readonly vad: SessionVad | null,
    private readonly onEvents: (events: SegmentEvent[]) => void,
    private readonly onFallback: (reason: string) => void,
  ) {}

  /** After Segmenter.push(pcm): the same samples to the VAD (nothing when the energy VAD decides). */
  push(pcm: Float32Array): void {
    if (!this.vad || !this.segmenter.usesExternalDetector || this.ended) return;
    const verdicts = this.vad.push(pcm);
    // Handled below, in order, once the pushes before it are decided; a rejection that comes before those
    // (the engine closed the stream while an earlier push still ran) is no unhandled rejection meanwhile.
    verdicts.catch(() => undefined);
    this.queue = this.queue.then(() => verdicts).then(
      (probabilities) => {
        if (!this.ended && this.segmenter.usesExternalDetector) this.onEvents(this.segmenter.decide(probabilities));
      },
      (error: unknown) => {
        if (this.ended || !this.segmenter.usesExternalDetector) return;
        this.onFallback(`the Silero VAD failed (${(error as Error).message}); the energy VAD takes over`);
        this.onEvents(this.segmenter.fallBackToEnergy());
      },
    );
  }

  /** Waits for the verdicts of everything pushed (before the source's last segment is closed). */
  drained(): Promise<void> {
    return this.queue;
  }

  /** No more verdicts are applied; the engine's stream is closed. */
  close(): void {
    this.ended = true;
    this.vad?.close();
  }
}
