// The diarizer's shapes shared by the binding (native/index.ts, native/diarizer.ts) and the app: what a
// Streaming Sortformer model reports and the activities it computes.

export interface DiarizerInfo {
  path: string;
  name: string;
  nSpeakers: number;
  /** Seconds per activity frame (0.08). */
  frameSec: number;
  sampleRate: number;
  /** The model was trained to stream (parakeet.diar.streaming_mode). */
  streamingMode: boolean;
  chunkLen: number;
  chunkLeftContext: number;
  chunkRightContext: number;
  spkcacheLen: number;
  fifoLen: number;
  spkcacheUpdatePeriod: number;
  encoderLayers: number;
  transformerLayers: number;
  /** Segment thresholds from the file (parakeet.diar.onset_threshold / offset_threshold; NeMo's 0.5 where absent). */
  onsetThreshold: number;
  offsetThreshold: number;
  device: string;
  threads: number;
}

/** Activities of `frames` frames, [frames][nSpeakers] in one array (speaker fastest). */
export interface SpeakerActivities {
  frameSec: number;
  nSpeakers: number;
  frames: number;
  activities: Float32Array;
}

export interface NativeDiarizerStream {
  push(pcm: Float32Array): Promise<SpeakerActivities>;
  finish(): Promise<SpeakerActivities>;
  dispose(): void;
}

export interface NativeDiarizer {
  info(): DiarizerInfo;
  diarize(pcm: Float32Array, streaming: boolean): Promise<SpeakerActivities>;
  createStream(): NativeDiarizerStream;
  dispose(): void;
}

export interface DiarizerLoadOptions {
  device?: string;
  threads?: number;
}
