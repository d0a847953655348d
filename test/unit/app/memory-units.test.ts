// Devices numbers (issue 11): one unit convention (decimal, as file managers show), the CPU's memory as
// the OS defines "available" (Linux: MemAvailable, not MemFree), and the same figure in the Devices view
// and the diagnostics report.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DevicesState } from '../../../app/ipc/contract.js';
import { formatBytes } from '../../../app/shared/bytes.js';
import { withSystemMemory } from '../../../app/main/devices/device-registry.js';
import { formatDiagnostics } from '../../../app/main/diagnostics/format.js';
import { parseMeminfo, systemMemory } from '../../../app/main/util/memory.js';
import { formatBytes as viewBytes } from '../../../renderer/format.js';
import type { DeviceInfo } from '../../../native/index.js';

const MEMINFO = `MemTotal:       23456789 kB
MemFree:        10485760 kB
MemAvailable:   21474836 kB
Buffers:          123456 kB
`;

test('decimal units everywhere: a 178 MB download reads 178 MB, not "170 MB"', () => {
  assert.equal(formatBytes(178_000_000), '178 MB');
  assert.equal(formatBytes(23_500_000_000), '23.5 GB');
  assert.equal(formatBytes(999), '999 B');
  assert.equal(formatBytes(1500), '1.50 kB');
  assert.equal(formatBytes(999_999), '1.00 MB', 'rounded up into the next unit, never "1000 kB"');
  assert.equal(viewBytes(178_000_000), formatBytes(178_000_000), 'the views use the same formatter');
});

test('available memory is MemAvailable on Linux (what `free` shows), not MemFree', () => {
  const parsed = parseMeminfo(MEMINFO);
  assert.deepEqual(parsed, { totalBytes: 23456789 * 1024, availableBytes: 21474836 * 1024 });
  if (process.platform === 'linux') {
    const m = systemMemory(() => MEMINFO);
    assert.equal(m.source, 'MemAvailable');
    assert.equal(m.availableBytes, 21474836 * 1024);
  }
  assert.equal(parseMeminfo('MemTotal: 1 kB\n'), null, 'an old kernel without MemAvailable: the portable figure');
});

test('the CPU row and the diagnostics report show the same available figure', () => {
  const cpu = { name: 'CPU', type: 'cpu', backend: 'CPU', description: 'x', memoryTotal: 5, memoryFree: 5, cpuThreads: 2, cpuFeatures: [] } as unknown as DeviceInfo;
  const memory = { totalBytes: 24_000_000_000, availableBytes: 22_000_000_000, source: 'MemAvailable' as const };
  const [row] = withSystemMemory([cpu], () => memory);
  assert.equal(row!.memoryFree, 22_000_000_000);
  const devices = { devices: [row!], selected: 'auto', active: null, lastRan: [], failed: [], selfTests: [], prepared: [], autoSkipped: [] } as unknown as DevicesState;
  const text = formatDiagnostics({
    generatedAt: 'now', app: { name: 'p', version: '0', mode: 'web' },
    system: { platform: 'linux', arch: 'x64', release: '', osVersion: '', totalMemoryBytes: memory.totalBytes, freeMemoryBytes: memory.availableBytes, cpuModel: 'c', cpuCount: 2 },
    runtime: { node: '', v8: '', electron: null, chromium: null },
    engine: { status: { state: 'ready', mode: 'process', model: null, modelId: null, restarts: 0, lastError: null }, ggml: null, backendDl: null },
    devices, settings: {} as never, history: { entries: 0 }, log: { file: '', lines: [] },
  } as never);
  assert.match(text, /memory: 22\.0 GB available of 24\.0 GB/);
  assert.equal(text.match(/22\.0 GB available/g)?.length, 2, 'system and CPU rows agree');
});
