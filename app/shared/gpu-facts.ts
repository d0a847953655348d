// A GPU's own properties in words, the same in the Devices view, the diagnostics report and
// `parakeet devices`: the API and driver, and the precision features its backend chooses kernels by.
import type { GpuProperties } from '../../types/engine.js';

/** "Vulkan 1.3.289 · driver llvmpipe (Mesa 25.0.7 …)" */
export function gpuDriverText(gpu: GpuProperties): string {
  const driver = [gpu.driverName, gpu.driverInfo ? `(${gpu.driverInfo})` : ''].filter(Boolean).join(' ');
  return `${gpu.api} ${gpu.apiVersion}${driver ? ` · driver ${driver}` : ''}`;
}

/** Each feature with whether this device has it. */
export function gpuFeatures(gpu: GpuProperties): { label: string; supported: boolean }[] {
  return [
    { label: 'fp16', supported: gpu.fp16 },
    { label: 'integer dot product', supported: gpu.integerDot },
    { label: 'cooperative matrix', supported: gpu.cooperativeMatrix },
  ];
}

/** "fp16: yes, integer dot product: no, cooperative matrix: no" */
export function gpuFeaturesText(gpu: GpuProperties): string {
  return gpuFeatures(gpu).map((f) => `${f.label}: ${f.supported ? 'yes' : 'no'}`).join(', ');
}
