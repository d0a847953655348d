// The engine's values as the contract's DTOs. The addon's ModelInfo has 46
// fields; the UI reads a handful (ModelSummary) and the diagnostics report
// more (ModelDetails): each is picked field by field here, so nothing the
// contract does not declare crosses IPC, and a field renamed in the addon is a
// compile error in this file only.
import type { EngineStatus, ModelDetails, ModelSummary } from '../ipc/contract.js';
import type { ModelInfo } from '../../native/index.js';
import type { EngineHostStatus } from './engine/engine-host.js';

export function toModelSummary(m: ModelInfo): ModelSummary {
  return {
    path: m.path,
    name: m.name,
    arch: m.arch,
    decoders: [...m.decoders],
    defaultDecoder: m.defaultDecoder,
    device: m.device,
    weightType: m.weightType,
    threads: m.threads,
    ...(m.streaming
      ? { live: { presets: m.attContextPresets.map(([l, r]): [number, number] => [l, r]), frameSec: m.frameSec, languages: m.hasPrompt ? m.languages.filter((l) => l !== 'auto') : [] } }
      : {}),
  };
}

export function toModelDetails(m: ModelInfo): ModelDetails {
  return {
    ...toModelSummary(m),
    hasCtc: m.hasCtc,
    hasTransducer: m.hasTransducer,
    isTdt: m.isTdt,
    fileBytes: m.fileBytes,
    weightBytes: m.weightBytes,
    tensorCount: m.tensorCount,
    dModel: m.dModel,
    nLayers: m.nLayers,
    nHeads: m.nHeads,
    ffDim: m.ffDim,
    convKernel: m.convKernel,
    nMels: m.nMels,
    vocabSize: m.vocabSize,
    predHidden: m.predHidden,
    predLayers: m.predLayers,
    jointHidden: m.jointHidden,
    tensorTypes: m.tensorTypes,
    weightTypes: m.weightTypes,
    mmap: m.mmap,
    scheduled: m.scheduled,
    loadMs: m.loadMs,
  };
}

export function toEngineStatus(status: EngineHostStatus): EngineStatus {
  return { ...status, model: status.model ? toModelSummary(status.model) : null };
}
