// The engine's data as it crosses IPC: devices, the loaded model, words and
// token timings. Declared on the bottom floor (types/: a leaf, it imports nothing);
// the IPC contract re-exports them.
// The binding's plain shapes (devices, words, tokens) are these very types
// (native/index.ts re-exports them); the addon's 46-field ModelInfo is not
// sent: main maps it to ModelSummary / ModelDetails (app/main/contract-mapping.ts).

export type DecoderName = 'tdt' | 'rnnt' | 'ctc';
export type WeightType = 'auto' | 'f32' | 'f16' | 'bf16' | 'q8_0' | 'q4_0' | 'q4_k' | 'int8' | 'i16';
export type DeviceType = 'cpu' | 'gpu' | 'igpu' | 'accel';

export interface DeviceInfo {
  /** ggml device name: "CPU", "CUDA0", "Vulkan1", … */
  name: string;
  description: string;
  /** ggml backend (registry) name: "CPU", "CUDA", "Vulkan", "Metal", … */
  backend: string;
  type: DeviceType;
  memoryFree: number;
  memoryTotal: number;
  deviceId: string;
  /** CPU only: instruction-set features of the ggml CPU backend ("AVX2", "AVX512_BF16", …). */
  cpuFeatures: string[];
  /** CPU only: hardware threads. */
  cpuThreads: number;
  /** A GPU-API device that computes on the CPU (lavapipe/llvmpipe, SwiftShader): never picked automatically, only by name. */
  softwareRenderer: boolean;
  /** What the GPU API says about it (a Vulkan device in a Vulkan build); absent on the CPU and in other builds. */
  gpu?: GpuProperties;
}

/** A GPU's own properties, read from its API (the engine's runtime/gpu_properties.cpp). */
export interface GpuProperties {
  api: 'Vulkan';
  /** The device's API version: "1.3.289". */
  apiVersion: string;
  /** The driver's name ("llvmpipe", "NVIDIA", "radv") and its own version text ("Mesa 25.0.7 (LLVM 19.1.7)"). */
  driverName: string;
  driverInfo: string;
  /** 16-bit float storage and arithmetic in shaders. */
  fp16: boolean;
  /** Accelerated packed 8-bit integer dot products (quantized matmuls). */
  integerDot: boolean;
  /** Cooperative matrices (matrix cores), as the driver offers them. */
  cooperativeMatrix: boolean;
}

/** Which device a model was placed on, and why. */
export interface DeviceSelection {
  requested: string;
  source: 'argument' | 'environment' | 'auto';
  device: DeviceInfo;
  /** The request could not be honoured; `reason` says why. */
  fellBack: boolean;
  /**
   * It fell back because the device has too little free memory for this model's weights: the device works (a
   * smaller model or weight type may fit), so it is not marked failed.
   */
  noRoom?: boolean;
  reason: string;
}

/** The loaded model as the UI shows it (EngineStatus.model): what the views read, nothing more. */
/** A cache-aware streaming model's live-text choices (absent for offline models). */
export interface ModelStreaming {
  /** [left, right] attention presets in encoder frames; the first is the model's default. */
  presets: [number, number][];
  /** Seconds of audio per encoder frame (0.08): a preset's chunk is right + 1 frames. */
  frameSec: number;
  /** Prompt models (Nemotron-3.5): their locales ('auto' is always offered besides); empty otherwise. */
  languages: string[];
}

export interface ModelSummary {
  path: string;
  /** `general.name` ('' when the file has none). */
  name: string;
  arch: string;
  decoders: DecoderName[];
  defaultDecoder: DecoderName;
  device: DeviceSelection;
  weightType: WeightType;
  threads: number;
  /** Streaming models only: presets and locales (the addon's ModelInfo carries them under other names). */
  live?: ModelStreaming;
}

/** The loaded model as the diagnostics report describes it. */
export interface ModelDetails extends ModelSummary {
  hasCtc: boolean;
  hasTransducer: boolean;
  isTdt: boolean;
  fileBytes: number;
  weightBytes: number;
  tensorCount: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  ffDim: number;
  convKernel: number;
  nMels: number;
  vocabSize: number;
  predHidden: number;
  predLayers: number;
  jointHidden: number;
  /** GGML type name -> number of tensors, as stored in the file. */
  tensorTypes: Record<string, number>;
  /** GGML type name -> number of graph weights, as placed on the device. */
  weightTypes: Record<string, number>;
  /** Weights are used in place from the memory-mapped file. */
  mmap: boolean;
  /** Graphs always go through ggml_backend_sched. */
  scheduled: boolean;
  loadMs: number;
}

export interface Word {
  text: string;
  start: number;
  end: number;
  confidence: number;
  /** Who said it, where a diarizer attributed the words (a speaker name: "Speaker 2", or the user's rename). */
  speaker?: string;
}

export interface TokenTiming {
  id: number;
  piece: string;
  frame: number;
  duration: number;
  start: number;
  end: number;
  confidence: number;
}
