// Decides where each captured frame goes, so that no sample between "mic
// open" and "session stopped" is dropped:
//   armed, no session  -> pre-roll ring (keeps the newest preRoll samples)
//   Start pressed      -> latched: the ring stops evicting; frames queue up
//                         while dictation:start is in flight
//   session attached   -> queued audio is sent first, in order, then frames
//                         stream straight through
// DOM-free (unit-tested); the microphone and the IPC are plugged in by the
// dictation controller.
import { SampleRing } from './ring-buffer.js';

/** Receives each frame with the index of its first sample in the session's stream (for exact gap accounting on the main side). */
export type FrameSink = (frame: Float32Array, startSample: number) => void;

export class CaptureRouter {
  private readonly ring: SampleRing;
  private queue: Float32Array[] = [];
  private mode: 'armed' | 'latched' | 'streaming' = 'armed';
  private sink: FrameSink | null = null;
  private sent = 0;

  constructor(preRollSamples: number) {
    this.ring = new SampleRing(Math.max(1, Math.round(preRollSamples)));
  }

  get state(): 'armed' | 'latched' | 'streaming' {
    return this.mode;
  }

  /** Samples handed to the sink since the last attach(). */
  get samplesSent(): number {
    return this.sent;
  }

  /** Samples waiting (pre-roll plus queued) that the next attach() will send first. */
  get samplesHeld(): number {
    return this.ring.length + this.queue.reduce((n, f) => n + f.length, 0);
  }

  push(frame: Float32Array): void {
    if (this.mode === 'streaming' && this.sink) {
      const start = this.sent;
      this.sent += frame.length;
      this.sink(frame, start);
    } else if (this.mode === 'latched') {
      this.queue.push(frame);
    } else {
      this.ring.push(frame);
    }
  }

  /** Start pressed: freeze the pre-roll and queue everything from now on. Returns the pre-roll length in samples. */
  latch(): number {
    if (this.mode === 'armed') this.mode = 'latched';
    return this.ring.length;
  }

  /** The session exists: send the pre-roll and the queue, in order, then stream. */
  attach(sink: FrameSink, maxFrameSamples = 4096): void {
    this.sink = sink;
    this.sent = 0;
    const preRoll = this.ring.drain();
    // Split a long pre-roll so no single message is unusually large.
    for (let i = 0; i < preRoll.length; i += maxFrameSamples) this.forward(preRoll.subarray(i, i + maxFrameSamples));
    for (const frame of this.queue) this.forward(frame);
    this.queue = [];
    this.mode = 'streaming';
  }

  /** The session ended (stopped, cancelled or failed to start): back to pre-roll. */
  detach(): void {
    this.sink = null;
    this.queue = [];
    this.ring.clear();
    this.mode = 'armed';
  }

  private forward(frame: Float32Array): void {
    if (!this.sink || frame.length === 0) return;
    const start = this.sent;
    this.sent += frame.length;
    this.sink(frame.slice(), start);
  }
}
