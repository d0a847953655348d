// The engine process's voice-activity detector: the Silero VAD model (when one is loaded), its streams
// (one per live audio source: a dictation, each meeting track), and a pass over a file job's blocks
// (vad-file-pass.ts). Each stream's pushes run one after another (a queue), each on the stream's own one-thread CPU
// graph (native VadStream): they never wait for the ASR model's states, nor delay them.
import { performance } from 'node:perf_hooks';
import { VadModel, type VadStream } from '../../native/index.js';
import type { VadSegmentOptions } from '../shared/vad-segments.js';
import { sileroModelName } from '../shared/silero-name.js';
import { type EngineVadStatus } from './protocol.js';
import { CodedError } from '../../types/errors.js';
import { VadFilePass } from './vad-file-pass.js';

/** Silero's rate for everything the app sends (its 8 kHz weights serve the CLI's 8 kHz files). */
export const VAD_RATE = 16000;

interface OpenStream {
  stream: VadStream;
  /** The last push queued: the next one starts after it. */
  tail: Promise<unknown>;
  /** Wall time inside the native calls and samples pushed: what the VAD cost this stream. */
  computeMs: number;
  samples: number;
}

/** What a closed stream cost: compute time against its audio (VAD cost in % of real time). */
export interface VadStreamCost {
  computeMs: number;
  audioSec: number;
}

export class EngineVad {
  private model: VadModel | null = null;
  private status: EngineVadStatus = { kind: 'energy', reason: 'no VAD model is loaded' };
  private readonly streams = new Map<number, OpenStream>();
  private nextStream = 1;

  /**
   * Loads a Silero VAD GGUF (null: none, callers use the energy VAD); the old model's streams end. The old
   * model stays until the new one is ready: a file job opened while the file loads (the host still reports
   * the old Silero) is cut by a Silero, not silently by the energy VAD. A load that fails leaves none.
   */
  async load(path: string | null): Promise<EngineVadStatus> {
    if (path === null) {
      this.unload('the energy VAD was chosen in Settings');
      return this.status;
    }
    let next: VadModel;
    try {
      next = await VadModel.load(path);
    } catch (error) {
      this.unload(`the Silero VAD could not be loaded (${(error as Error).message})`);
      throw error;
    }
    this.unload('');
    this.model = next;
    const info = next.info();
    this.status = { kind: 'silero', path, sourceVersion: info.sourceVersion, weightType: info.weightType };
    if (info.bundleComponent) this.status.bundleComponent = info.bundleComponent;
    return this.status;
  }

  /** Ends the loaded model's streams and the model (a file pass's own stream keeps its weights until it ends). */
  private unload(reason: string): void {
    this.closeAll();
    this.model?.dispose();
    this.model = null;
    this.status = { kind: 'energy', reason };
  }

  /** "Silero VAD v6.2 (F32)": the loaded model in the words the Files result and History use. */
  describe(): string {
    const s = this.status;
    return s.kind === 'silero' ? sileroModelName(s.sourceVersion, s.weightType) : 'none';
  }

  current(): EngineVadStatus {
    return this.status;
  }

  open(): { stream: number; chunkSamples: number } {
    if (!this.model) throw new CodedError('NO_VAD', 'no Silero VAD model is loaded; the energy VAD is used');
    const stream = this.model.createStream(VAD_RATE);
    const id = this.nextStream++;
    this.streams.set(id, { stream, tail: Promise.resolve(), computeMs: 0, samples: 0 });
    return { stream: id, chunkSamples: stream.chunkSamples };
  }

  /** Queued behind the stream's previous push: probabilities come back in the order the audio went in. */
  push(id: number, pcm: Float32Array): Promise<Float32Array> {
    const open = this.streams.get(id);
    if (!open) return Promise.reject(new CodedError('NOT_FOUND', `no open VAD stream ${id}`));
    const process = async (): Promise<Float32Array> => {
      const started = performance.now();
      const probs = await open.stream.process(pcm);
      open.computeMs += performance.now() - started;
      open.samples += pcm.length;
      return probs;
    };
    const run = open.tail.then(process, process);
    open.tail = run;
    return run;
  }

  /** Ends a stream after its queued pushes; resolves with what it cost. */
  async close(id: number): Promise<VadStreamCost> {
    const open = this.streams.get(id);
    this.streams.delete(id);
    if (!open) return { computeMs: 0, audioSec: 0 };
    await open.tail.catch(() => undefined);
    open.stream.dispose();
    return { computeMs: open.computeMs, audioSec: open.samples / VAD_RATE };
  }

  /** A file job's pass over the file's blocks on a stream of its own; null when no model is loaded. */
  filePass(options: VadSegmentOptions & { trimMs?: number }): VadFilePass | null {
    return this.model ? new VadFilePass(this.model.createStream(VAD_RATE), VAD_RATE, options) : null;
  }

  private closeAll(): void {
    for (const id of [...this.streams.keys()]) void this.close(id);
  }

  dispose(): void {
    this.unload('the engine stopped');
  }
}
