// The plain-text form of the diagnostics report (what Copy and Save give):
// sections of "key: value" lines a person can read in an issue, then the log.
import type { DeviceInfo, DiagnosticsData, ModelDetails } from '../../ipc/contract.js';
import { gpuDriverText, gpuFeaturesText } from '../../shared/gpu-facts.js';
import { formatBytes } from '../models/errors.js';

const counts = (types: Record<string, number>): string =>
  Object.entries(types).map(([type, n]) => `${type}×${n}`).join(', ') || 'none';

function device(d: DeviceInfo): string[] {
  const lines = [`  ${d.name} (${d.type}, backend ${d.backend}): ${d.description}`];
  if (d.memoryTotal > 0) lines.push(`    memory: ${formatBytes(d.memoryFree)} ${d.type === 'cpu' ? 'available' : 'free'} of ${formatBytes(d.memoryTotal)}`);
  if (d.type === 'cpu') lines.push(`    threads: ${d.cpuThreads}; features: ${d.cpuFeatures.join(' ') || 'none reported'}`);
  if (d.softwareRenderer) lines.push('    software renderer: computes on the CPU; never picked automatically');
  if (d.gpu) lines.push(`    ${gpuDriverText(d.gpu)}; ${gpuFeaturesText(d.gpu)}`);
  return lines;
}

function model(m: ModelDetails | null): string[] {
  if (!m) return ['  none loaded'];
  const heads = [m.hasTransducer ? (m.isTdt ? 'TDT' : 'RNNT') : null, m.hasCtc ? 'CTC' : null].filter(Boolean).join(' + ');
  return [
    `  name: ${m.name || '(unnamed)'}; arch: ${m.arch}; heads: ${heads}; default decoder: ${m.defaultDecoder}`,
    `  file: ${m.path} (${formatBytes(m.fileBytes)}, ${m.tensorCount} tensors, weights ${formatBytes(m.weightBytes)})`,
    `  dims: d_model ${m.dModel}, ${m.nLayers} layers, ${m.nHeads} heads, ff ${m.ffDim}, conv kernel ${m.convKernel}, ` +
      `${m.nMels} mels, vocab ${m.vocabSize}, prediction ${m.predHidden}×${m.predLayers}, joint ${m.jointHidden}`,
    `  stored types: ${counts(m.tensorTypes)}`,
    `  placed types: ${counts(m.weightTypes)} (weight type ${m.weightType}, ${m.mmap ? 'memory-mapped' : 'copied'})`,
    `  device: ${m.device.device.name} (asked: ${m.device.requested || 'auto'}, ${m.device.source}` +
      `${m.device.fellBack ? `; fell back: ${m.device.reason}` : ''}); threads ${m.threads}${m.scheduled ? '; always scheduled' : ''}`,
    `  load time: ${m.loadMs.toFixed(0)} ms`,
  ];
}

export function formatDiagnostics(d: DiagnosticsData): string {
  const { system: sys, runtime: rt, engine, devices } = d;
  const ggml = engine.ggml;
  const status = engine.status;
  const lines = [
    `Parakeet Desktop diagnostics (${d.generatedAt})`,
    '',
    '[app]',
    `  ${d.app.name} ${d.app.version}, ${d.app.mode} mode`,
    '[system]',
    `  ${sys.platform}/${sys.arch}, release ${sys.release} (${sys.osVersion})`,
    `  CPU: ${sys.cpuModel} × ${sys.cpuCount}`,
    `  memory: ${formatBytes(sys.freeMemoryBytes)} available of ${formatBytes(sys.totalMemoryBytes)}`,
    `  node ${rt.node}, v8 ${rt.v8}, electron ${rt.electron ?? 'n/a'}, chromium ${rt.chromium ?? 'n/a'}`,
    '[engine]',
    ggml
      ? `  ggml ${ggml.version}, commit ${ggml.commit}, source ${ggml.source}; backends: ${ggml.backends.join(', ') || 'CPU'}` +
        `${engine.backendDl ? ' (loadable modules)' : ''}`
      : '  ggml: engine not available',
    `  state: ${status.state}, ${status.mode}, restarts ${status.restarts}, pid ${status.pid ?? 'n/a'}`,
    `  last error: ${status.lastError ? `[${status.lastError.code}] ${status.lastError.message}` : 'none'}`,
    '[devices]',
    ...devices.devices.flatMap(device),
    `  selected: ${devices.selected}; active: ${devices.active?.device.name ?? 'none'}; last ran: ${devices.lastRan.join(', ') || 'n/a'}`,
    ...(devices.failed.length ? devices.failed.map((f) => `  failed: ${f.name} at ${f.at}: ${f.reason}`) : ['  failed: none']),
    // Older diagnostics (and builds without loadable backends) have none.
    ...(devices.backendsNotLoaded ?? []).map((line) => `  not loaded: ${line}`),
    ...(devices.selfTests.length
      ? devices.selfTests.map((t) => `  self-test ${t.device} (${t.trigger}, vs ${t.reference}) ${t.passed ? 'passed' : 'FAILED'} at ${t.at}: ${t.detail}` +
        (t.speed ? `; ${t.speed.audioMs} ms of audio in ${t.speed.deviceMs} ms (reference ${t.speed.referenceMs} ms)` : ''))
      : ['  self-tests: none run']),
    ...devices.prepared.map((p) => `  first use of ${p.device} (pipeline compilation): ${p.ms} ms`),
    ...devices.autoSkipped.map((d) => `  Auto skips ${d.name}: ${d.reason}`),
    '[model]',
    ...model(engine.model),
    `  installed id: ${status.modelId ?? 'n/a'}`,
    '[settings]',
    ...JSON.stringify(d.settings, null, 2).split('\n').map((l) => `  ${l}`),
    '[history]',
    `  entries: ${d.history.entries}`,
    `[log: last ${d.log.lines.length} lines of ${d.log.file}]`,
    ...d.log.lines,
  ];
  return `${lines.join('\n')}\n`;
}
