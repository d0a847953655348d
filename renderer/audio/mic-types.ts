// The microphone's interface and errors, apart from mic.ts (which needs the
// browser and Vite's worklet import), so the dictation controller can be
// unit-tested with a stand-in microphone.
import type { AudioCaptureSettings } from '../../app/ipc/contract.js';

export type MicErrorCode = 'PERMISSION_DENIED' | 'MIC_NOT_FOUND' | 'MIC_BUSY' | 'MIC_UNSUPPORTED' | 'MIC_FAILED';

export class MicError extends Error {
  constructor(readonly code: MicErrorCode, message: string) {
    super(message);
    this.name = 'MicError';
  }
}

export interface MicOptions {
  audio: AudioCaptureSettings;
  /** Frame length posted by the worklet (ms). */
  frameMs: number;
  onFrame(frame: Float32Array): void;
  /** The track ended without close() (device unplugged, permission revoked). */
  onEnded(): void;
  /** The chosen input was not available and the default was used instead. */
  onFallback?(message: string): void;
}

export interface MicHandle {
  readonly sampleRate: number;
  readonly label: string;
  /** Resolves once every sample captured so far has reached onFrame (the partial last frame included). */
  flush(): Promise<void>;
  close(): Promise<void>;
}
