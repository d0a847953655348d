// How a file is cut by the trained VAD, from the dictation settings: the file job's (file-transcriber.ts)
// and `parakeet transcribe --vad`'s (Settings' defaults), so both cut a file alike. Each segment keeps what
// a live one keeps after its speech (SPEECH_TAIL_MS).
import type { DictationSettings } from '../../ipc/contract.js';
import type { EngineVadOptions } from '../../engine-process/protocol.js';
import { SPEECH_TAIL_MS } from '../../shared/vad-segments.js';

export function fileVadOptions(
  d: Pick<DictationSettings, 'vadSpeechThreshold' | 'vadMinSpeechMs' | 'vadMinSilenceMs' | 'vadSpeechPadMs' | 'vadEdgeTrimMs'>,
): EngineVadOptions & { trimMs: number } {
  return {
    threshold: d.vadSpeechThreshold, minSpeechMs: d.vadMinSpeechMs, minSilenceMs: d.vadMinSilenceMs, padMs: d.vadSpeechPadMs,
    tailMs: SPEECH_TAIL_MS, trimMs: d.vadEdgeTrimMs,
  };
}
