// The Models view's import request (models:import): the .nemo weight choice is one of the three the
// importer writes, optional (absent: the default), and anything else is refused at the IPC boundary
// with a message that names the field and the allowed values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NEMO_DEFAULT_WEIGHTS, NEMO_WEIGHT_TYPES } from '../../../app/ipc/contract.js';
import { validatePayload } from '../../../app/ipc/validate.js';

test('models:import takes an optional nemoWeights of f32, f16 or q8_0', () => {
  assert.deepEqual([...NEMO_WEIGHT_TYPES].sort(), ['f16', 'f32', 'q8_0']);
  assert.ok(NEMO_WEIGHT_TYPES.includes(NEMO_DEFAULT_WEIGHTS));
  for (const nemoWeights of NEMO_WEIGHT_TYPES) {
    assert.deepEqual(validatePayload('models:import', { path: '/m/a.nemo', nemoWeights }), { ok: true, value: { path: '/m/a.nemo', nemoWeights } });
  }
  assert.deepEqual(validatePayload('models:import', { path: '/m/a.gguf' }), { ok: true, value: { path: '/m/a.gguf' } });
});

test('models:import refuses another weight type, a wrong type and unknown fields', () => {
  for (const payload of [
    { path: '/m/a.nemo', nemoWeights: 'bf16' },
    { path: '/m/a.nemo', nemoWeights: 'Q8_0' },
    { path: '/m/a.nemo', nemoWeights: 8 },
    { path: '/m/a.nemo', nemoWeights: 'q8_0', threads: 4 },
    { path: 'relative.nemo', nemoWeights: 'q8_0' },
  ]) {
    const r = validatePayload('models:import', payload);
    assert.equal(r.ok, false, JSON.stringify(payload));
    if (!r.ok) assert.equal(r.error.code, 'INVALID_PAYLOAD', r.error.message);
  }
  const r = validatePayload('models:import', { path: '/m/a.nemo', nemoWeights: 'bf16' });
  assert.ok(!r.ok && /nemoWeights/.test(r.error.message) && /q8_0/.test(r.error.message), JSON.stringify(r));
});
