// ModelInfo.kernels split by the registry's own ids (BuildInfo.kernelIds, read from the engine's
// tables): the matmul rows (weights per kernel) and the fused ops (layers per op), so a test states
// each part exactly.
import { buildInfo } from '../../../native/index.js';

const ids = buildInfo().kernelIds;

function only(kernels: Record<string, number>, keep: readonly string[]): Record<string, number> {
  return Object.fromEntries(Object.entries(kernels).filter(([id]) => keep.includes(id)));
}

/** The matmul rows of a ModelInfo.kernels: kernel id → weights it runs. */
export const matmulKernels = (kernels: Record<string, number>): Record<string, number> => only(kernels, ids.matmul);

/** The fused ops of a ModelInfo.kernels: op id → layers it runs in (1: once a call). */
export const opKernels = (kernels: Record<string, number>): Record<string, number> => only(kernels, ids.ops);

/** Every id a ModelInfo.kernels may hold. */
export const registryIds: readonly string[] = [...ids.matmul, ...ids.ops];
