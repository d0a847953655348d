// The latency panel's row for live text on a streaming model (issue 39): what each chunk costs the
// engine (median wall time of the encoder and decoder) against the audio the chunk holds.
import type { StreamChunkCompute } from '../../app/ipc/contract.js';
import { formatMs } from '../format.js';
import type { Fact } from './FactList.js';

export function streamChunkFact(chunk: StreamChunkCompute): Fact {
  return [
    'stream-chunk', 'Streaming chunk compute (median)', `${formatMs(chunk.p50Ms)} · ${chunk.percent.toFixed(1)} % of its ${Math.round(chunk.chunkAudioMs)} ms`,
    `p95 ${formatMs(chunk.p95Ms)} over the last ${chunk.chunks} chunks`,
  ];
}
