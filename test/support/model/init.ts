// Draws a tensor's float32 values from its Init spec with a stream seeded by
// (model seed, tensor name).
import { elementCount } from '../gguf/types.js';
import { Rng } from './rng.js';
import type { TensorPlan } from './tensor-plan.js';

export function tensorValues(plan: TensorPlan, seed: number): Float32Array {
  const n = elementCount(plan.ne);
  const init = plan.init;
  if (init.kind === 'fixed') {
    const v = init.values();
    if (v.length !== n) throw new Error(`${plan.name}: fixed values have ${v.length} elements, shape needs ${n}`);
    return Float32Array.from(v);
  }
  const out = new Float32Array(n);
  const rng = new Rng(seed, plan.name);
  switch (init.kind) {
    case 'uniform':
      rng.fillUniform(out, init.lo, init.hi);
      break;
    case 'zeroRows':
      rng.fillUniform(out, -init.bound, init.bound);
      for (const r of init.rows) out.fill(0, r * init.rowLen, (r + 1) * init.rowLen);
      break;
    case 'zeroMeanRows':
      rng.fillUniform(out, -init.bound, init.bound);
      for (let r = 0; r + init.rowLen <= n; r += init.rowLen) {
        let mean = 0;
        for (let i = r; i < r + init.rowLen; i++) mean += out[i];
        mean /= init.rowLen;
        for (let i = r; i < r + init.rowLen; i++) out[i] -= mean;
      }
      break;
    case 'offsets':
      rng.fillUniform(out, -init.bound, init.bound);
      for (const [i, v] of init.offsets) out[i] += v;
      break;
  }
  return out;
}
