// Feeds a live source's audio to the engine's trained VAD (Silero) and its verdicts to the Segmenter
// (detector 'external'), in order. The verdicts arrive after the audio (an engine round trip, about a
// millisecond per 32 ms chunk), so the segment events they cause name samples already stored. If the VAD
// stream fails (the engine restarted, Settings loaded another Silero file), a new stream takes over from the
// first undecided window, given the audio from there again (the source keeps it: Segmenter.earliestStart);
// only when none can be opened (the engine runs no Silero now) or after MAX_REOPENS failures in a row (no
// verdict between them: a stream failing on the same audio again) does the source go on with the energy VAD —
// which types words into noise that Silero keeps out — and say so once, to the user.
import type { SegmentEvent, Segmenter } from './segmenter.js';

/**
 * A trained VAD's stream on the engine (Silero; EngineHost.vadStream): one speech probability per
 * 512-sample chunk (16 kHz) completed by each push, in push order.
 */
export interface SessionVad {
  push(pcm: Float32Array): Promise<Float32Array>;
  close(): void;
}

/** How a source replaces a failed VAD stream (VadFeed): a new stream, and its audio not yet decided. */
export interface VadReopen {
  /** A new stream on the engine's trained VAD; null when it runs none now (the energy VAD takes over). */
  open: () => SessionVad | null;
  /** The source's samples [from, to) on the Segmenter's timeline (kept from its first undecided sample on). */
  audio: (from: number, to: number) => Float32Array;
}

/** SessionVad's sample rate. */
const SESSION_VAD_RATE = 16_000;

/**
 * Streams a source opens in place of failed ones with no verdict between them: a stream that fails on its own
 * audio again ends it. A replacement that decided audio starts the count again, so a long meeting outlives any
 * number of engine restarts and VAD reloads spread over it.
 */
export const MAX_REOPENS = 3;

/** What a source tells the user when the energy VAD takes over from Silero for the rest of it (`cause`: why Silero stopped). */
export function vadFallbackMessage(source: 'dictation' | 'meeting track', cause: string): string {
  const rest = source === 'dictation'
    ? 'the rest of this dictation and may turn noise into words. The next dictation uses Silero again if the engine still runs it (Devices shows the detector in use).'
    : 'the rest of this meeting\'s audio from this source and may turn noise into words.';
  return `Silero voice detection stopped (${cause}): the energy detector cuts ${rest}`;
}

export class VadFeed {
  /** Resolves once every pushed sample is decided. */
  private queue: Promise<void> = Promise.resolve();
  private ended = false;
  private vad: SessionVad | null;
  /** Counts the streams replaced: verdicts of a replaced stream are not applied (its audio went to the next). */
  private generation = 0;
  private reopens = 0;

  constructor(
    private readonly segmenter: Segmenter,
    vad: SessionVad | null,
    private readonly onEvents: (events: SegmentEvent[]) => void,
    /**
     * Says what happened to the VAD: a stream replaced (no `fallback`: the source logs it), or the energy VAD
     * taking over for the rest of the source (`fallback.cause`: why Silero stopped; the source also tells the user).
     */
    private readonly onReport: (what: string, fallback?: { cause: string }) => void,
    private readonly reopen?: VadReopen,
  ) {
    this.vad = vad;
  }

  /** After Segmenter.push(pcm): the same samples to the VAD (nothing when the energy VAD decides). */
  push(pcm: Float32Array): void {
    if (!this.vad || !this.segmenter.usesExternalDetector || this.ended) return;
    this.apply(this.vad.push(pcm), this.generation);
  }

  /** Queues one push's verdicts: applied once the pushes before it are decided. */
  private apply(verdicts: Promise<Float32Array>, generation: number): void {
    // A rejection that comes before the earlier pushes are decided (the engine closed the stream while an
    // earlier push still ran) is handled below, in order: no unhandled rejection meanwhile.
    verdicts.catch(() => undefined);
    this.queue = this.queue.then(() => verdicts).then(
      (probabilities) => {
        if (generation !== this.generation || this.ended || !this.segmenter.usesExternalDetector) return;
        // Audio decided by this stream (a push shorter than a window decides nothing): the failures in a row end.
        if (probabilities.length > 0) this.reopens = 0;
        this.onEvents(this.segmenter.decide(probabilities));
      },
      (error: unknown) => {
        if (generation !== this.generation || this.ended || !this.segmenter.usesExternalDetector) return;
        const message = (error as Error).message;
        if (this.replace(message)) return;
        this.onReport(`the Silero VAD failed (${message}); the energy VAD takes over`, { cause: message });
        this.onEvents(this.segmenter.fallBackToEnergy());
      },
    );
  }

  /**
   * A new stream in place of the failed one, given the audio from the first undecided window on (its
   * chunks then fall on the Segmenter's windows); the old stream's pushes still in flight are ignored.
   * False when none can be opened, or MAX_REOPENS were.
   */
  private replace(why: string): boolean {
    if (!this.reopen || this.reopens >= MAX_REOPENS) return false;
    let next: SessionVad | null;
    try {
      next = this.reopen.open();
    } catch {
      next = null;
    }
    if (!next) return false;
    this.reopens += 1;
    this.vad?.close();
    this.vad = next;
    this.generation += 1;
    const from = this.segmenter.decidedSamples, to = this.segmenter.samples;
    this.onReport(`the Silero VAD stream failed (${why}); a new one takes over from ${(from / SESSION_VAD_RATE).toFixed(2)} s`);
    if (to > from) this.apply(next.push(this.reopen.audio(from, to)), this.generation);
    return true;
  }

  /** Waits for the verdicts of everything pushed (before the source's last segment is closed), replays included. */
  async drained(): Promise<void> {
    for (let waited: Promise<void> | null = null; waited !== this.queue;) {
      waited = this.queue;
      await waited;
    }
  }

  /** No more verdicts are applied; the engine's stream is closed. */
  close(): void {
    this.ended = true;
    this.vad?.close();
  }
}
