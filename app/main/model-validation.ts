// The model manager's "loaded once by the engine" check, wired to the engine
// process: the file is loaded into a separate model on the CPU (the resident
// one is untouched) and what the engine saw becomes the installed entry's
// metadata. The engine keeps that model for a short while, so activating the
// file next adopts it instead of loading it again (engine/staged-model.ts). The
// engine itself refuses what is not a speech-recognition model (Silero VAD,
// diarization, VAD-only: model_schema.cpp names the kind), so there is one
// architecture check, not two. Cache-aware streaming checkpoints (chunked_limited
// attention) are accepted: the engine decodes them offline, as NeMo does.
import path from 'node:path';
import type { ModelInfo } from '../../native/index.js';
import type { ValidateModel, ValidatedModelInfo } from './models/index.js';
import { CodedError } from '../../types/errors.js';
import type { EngineHost } from './engine/engine-host.js';

export function toValidatedModelInfo(file: string, info: ModelInfo): ValidatedModelInfo {
  const name = path.basename(file);
  if (info.decoders.length === 0) throw new CodedError('MODEL_INVALID', `${name} has no decoder head the engine can run`);
  return {
    architecture: info.arch,
    decoders: [...info.decoders],
    name: info.name || undefined,
    vocabSize: info.vocabSize,
    sampleRate: info.sampleRate,
    streaming: info.attContextStyle !== 'regular',
  };
}

export function engineValidator(engine: EngineHost): ValidateModel {
  return async (file, signal, options) => toValidatedModelInfo(file, await engine.validate(file, signal, options));
}
