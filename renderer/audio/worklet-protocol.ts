// Messages between the capture AudioWorklet and the main thread. Shared by
// both sides so a renamed field breaks the build, not the microphone.

export const CAPTURE_PROCESSOR_NAME = 'parakeet-capture';

export interface CaptureProcessorOptions {
  /** Samples per frame posted to the main thread (e.g. 640 = 40 ms at 16 kHz). */
  frameSize: number;
}

export type ToWorklet = { type: 'flush' } | { type: 'close' };

export type FromWorklet =
  | { type: 'frame'; samples: Float32Array }
  /** Every sample received before the flush request has been posted. */
  | { type: 'flushed' };
