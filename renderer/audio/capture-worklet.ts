// AudioWorklet processor: runs on the audio rendering thread, receives the
// microphone in 128-sample render quanta (at the AudioContext's 16 kHz),
// mixes to mono and posts fixed-size Float32 frames to the main thread.
// Loaded with audioWorklet.addModule() from its own built file (see mic.ts):
// a CSP with script-src 'self' forbids blob:/data: worklets.
import { FrameAccumulator, mixToMono } from './frame-accumulator.js';
import { CAPTURE_PROCESSOR_NAME, type CaptureProcessorOptions, type FromWorklet, type ToWorklet } from './worklet-protocol.js';

// The AudioWorkletGlobalScope is not part of TypeScript's DOM lib.
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: { processorOptions?: unknown });
}
declare function registerProcessor(name: string, ctor: new (options: { processorOptions?: unknown }) => AudioWorkletProcessor): void;

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly frames: FrameAccumulator;
  private closed = false;

  constructor(options: { processorOptions?: unknown }) {
    super(options);
    const opts = options.processorOptions as CaptureProcessorOptions | undefined;
    this.frames = new FrameAccumulator(opts?.frameSize ?? 640, (samples) => this.post({ type: 'frame', samples }, [samples.buffer]));
    this.port.onmessage = (event: MessageEvent<ToWorklet>) => {
      if (event.data.type === 'flush') {
        this.frames.flush();
        this.post({ type: 'flushed' });
      } else if (event.data.type === 'close') {
        this.closed = true;
      }
    };
  }

  private post(message: FromWorklet, transfer: Transferable[] = []): void {
    this.port.postMessage(message, transfer);
  }

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0];
    // No connected input (yet): keep the processor alive, nothing to send.
    if (input && input.length > 0) this.frames.push(mixToMono(input));
    return !this.closed;
  }
}

registerProcessor(CAPTURE_PROCESSOR_NAME, CaptureProcessor);
