// Settings › Live text: what a latency preset costs, in figures (issue 39 item 5). The waiting part follows
// from the preset: a word's text can commit only once the chunk holding it is complete (NeMo's chunk is
// right + 1 encoder frames, the look-ahead included), so it waits half a chunk on average and a whole chunk
// at most. The compute part is measured, not assumed: the engine's chunk compute in the last dictation on
// this model (LatencyReport.streamChunk, also Dictate's latency panel). The accuracy cost of a preset needs
// the trained weights and recordings with reference text, so it is said to be unmeasured, never guessed.
import type { StreamChunkCompute } from '../../../app/ipc/contract.js';
import { formatMs } from '../../format.js';

/** Audio per chunk of a [left, right] preset (ms). */
export function presetChunkMs(preset: readonly [number, number], frameSec: number): number {
  return Math.round((preset[1] + 1) * frameSec * 1000);
}

export interface PresetLatencyText {
  /** Waiting for the chunk plus compute, with the measured compute where the last dictation ran this chunk length. */
  latency: string;
  /** Where the compute figure comes from (or why there is none). */
  source: string;
  accuracy: string;
}

export const ACCURACY_UNMEASURED =
  'Accuracy cost: not measured. Comparing presets needs the model\'s trained weights and recordings with reference text; the app does not estimate it.';

export function presetLatencyText(chunkMs: number, measured: StreamChunkCompute | null | undefined): PresetLatencyText {
  const wait = Math.round(chunkMs / 2);
  if (measured && Math.abs(measured.chunkAudioMs - chunkMs) < 1) {
    return {
      latency: `First text ≈ ${wait} ms waiting for the chunk (at most ${chunkMs} ms) + ${formatMs(measured.p50Ms)} compute = ≈ ${formatMs(wait + measured.p50Ms)} after a word is spoken.`,
      source: `Measured in the last dictation: ${formatMs(measured.p50Ms)} a chunk (median of ${measured.chunks}, ${measured.percent.toFixed(1)} % of its audio), p95 ${formatMs(measured.p95Ms)}.`,
      accuracy: ACCURACY_UNMEASURED,
    };
  }
  return {
    latency: `First text ≈ ${wait} ms waiting for the chunk (at most ${chunkMs} ms) + the engine's compute per chunk.`,
    source: measured
      ? `The last dictation ran ${Math.round(measured.chunkAudioMs)} ms chunks (${formatMs(measured.p50Ms)} compute each); dictate once with this preset to measure it.`
      : 'Compute not measured yet: dictate once on this model and it is shown here (and in Dictate\'s latency panel).',
    accuracy: ACCURACY_UNMEASURED,
  };
}
