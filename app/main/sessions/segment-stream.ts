// One dictation segment decoded by a cache-aware streaming model (EOU-120M, Nemotron): the segment's
// audio is fed to an engine stream in order as it arrives, each chunk's tokens are committed (they never
// change, so partial text only grows), an <EOU>/<EOB> ends the utterance, and the end of the segment
// flushes the stream's tail (its final partial chunk). Offline models keep the session's re-decode path.
import type { Word } from '../../ipc/contract.js';
import type { EngineStreamChunk, EngineStreamHandle, EngineStreamOptions } from '../../engine-process/protocol.js';

/** What a segment stream needs from the engine (EngineHost provides it). */
export interface StreamDecoder {
  streamBegin(options: EngineStreamOptions): Promise<EngineStreamHandle>;
  streamFeed(handle: number, pcm: Float32Array): Promise<EngineStreamChunk[]>;
  streamEnd(handle: number): Promise<EngineStreamChunk[]>;
  streamClose(handle: number): Promise<void>;
}

/** The committed text of a stream so far, with word timings (seconds from the segment's start). */
export interface StreamText {
  text: string;
  words: Word[];
  /** The last language tag seen (Nemotron-3.5), e.g. "en-US"; null when the model emits none. */
  language: string | null;
  /** Custom-vocabulary phrases the chunks completed so far, each once. */
  phrasesFired: string[];
}

export interface SegmentStreamHooks {
  /** Chunks committed new text (partials only grow). */
  onText(text: StreamText): void;
  /** The model ended the utterance (<EOU>, or <EOB> where it applies). */
  onUtteranceEnd(kind: 'eou' | 'eob'): void;
  /** A chunk after the stream's first ran: its engine compute (encoder + decoder, ms) and the audio a chunk holds (ms). */
  onChunkCompute?(computeMs: number, chunkAudioMs: number): void;
}

export class SegmentStream {
  private readonly opened: Promise<EngineStreamHandle>;
  private queue: Promise<void> = Promise.resolve();
  private readonly words: Word[] = [];
  private text = '';
  private language: string | null = null;
  private readonly fired = new Set<string>();
  private failure: Error | null = null;
  private ended = false;
  private chunksSeen = 0;

  constructor(private readonly decoder: StreamDecoder, options: EngineStreamOptions, private readonly hooks: SegmentStreamHooks) {
    // A locale the user chose is the text's language (a tag the model emits still wins); auto waits for a tag.
    if (options.language && options.language !== 'auto') this.language = options.language;
    this.opened = decoder.streamBegin(options);
    this.opened.catch((error: unknown) => this.fail(error));
  }

  /** Why the stream stopped working (a dead engine, a model change), or null. The session then decodes the segment offline. */
  get error(): Error | null {
    return this.failure;
  }

  /** Appends the segment's next samples (16 kHz, in order); the chunks they complete arrive through the hooks. */
  feed(pcm: Float32Array): void {
    if (this.ended || this.failure || pcm.length === 0) return;
    this.queue = this.queue.then(async () => {
      if (this.failure) return;
      try {
        const { handle, chunkAudioMs } = await this.opened;
        const chunks = await this.decoder.streamFeed(handle, pcm);
        this.reportCompute(chunks, chunkAudioMs);
        this.take(chunks);
      } catch (error) {
        this.fail(error);
      }
    });
  }

  /** Flushes the tail and ends the stream: the segment's whole committed text. Rejects when the stream failed. */
  async end(): Promise<StreamText> {
    this.ended = true;
    await this.queue;
    if (this.failure) {
      // A feed that failed on a live engine (not a restart, which ends its streams) left the stream open there:
      // freed now, or it would hold the engine's memory until the model is next loaded.
      void this.release();
      throw this.failure;
    }
    try {
      const { handle } = await this.opened;
      this.take(await this.decoder.streamEnd(handle));
    } catch (error) {
      this.fail(error);
      throw this.failure ?? error;
    }
    return this.current();
  }

  /** Frees the engine's stream without its tail (a cancelled session). */
  close(): void {
    this.ended = true;
    void this.queue.then(() => this.release());
  }

  /** Closes the engine's stream, if it was opened (best effort: a dead engine's streams ended with it). */
  private async release(): Promise<void> {
    const opened = await this.opened.catch(() => null);
    if (opened) await this.decoder.streamClose(opened.handle).catch(() => undefined);
  }

  current(): StreamText {
    return { text: this.text, words: this.words.map((w) => ({ ...w })), language: this.language, phrasesFired: [...this.fired] };
  }

  /** The steady chunks' compute (the first builds its graph; end()'s tail chunk is short and not reported). */
  private reportCompute(chunks: EngineStreamChunk[], chunkAudioMs: number): void {
    for (const chunk of chunks) {
      if (this.chunksSeen++ > 0) this.hooks.onChunkCompute?.(chunk.encoderMs + chunk.decoderMs, chunkAudioMs);
    }
  }

  private take(chunks: EngineStreamChunk[]): void {
    let grew = false;
    let end: 'eou' | 'eob' | null = null;
    for (const chunk of chunks) {
      if (chunk.text) {
        this.text += chunk.text;
        grew = true;
      }
      this.appendWords(chunk);
      for (const phrase of chunk.phrasesFired) this.fired.add(phrase);
      for (const event of chunk.events) {
        if (event.type === 'lang' && event.language) this.language = event.language;
        if (event.type === 'eou' || event.type === 'eob') end ??= event.type;
      }
    }
    if (grew) this.hooks.onText(this.current());
    if (end && !this.ended) this.hooks.onUtteranceEnd(end);
  }

  /** A chunk's words; its first one continues the last word when a chunk boundary cut the word. */
  private appendWords(chunk: EngineStreamChunk): void {
    chunk.words.forEach((word, i) => {
      const last = this.words[this.words.length - 1];
      if (i > 0 || !chunk.continuesWord || last === undefined) {
        this.words.push({ ...word });
        return;
      }
      last.text += word.text;
      last.end = word.end;
      last.confidence = Math.min(last.confidence, word.confidence);
    });
  }

  private fail(error: unknown): void {
    this.failure ??= error instanceof Error ? error : new Error(String(error));
  }
}
