// A live segment's decode option for the onset fade (app/shared/onset-fade.ts): dictation and meeting tracks alike.
import type { EngineTranscribeOptions } from '../../engine-process/protocol.js';
import { ONSET_FADE_MS } from '../../shared/onset-fade.js';

/**
 * The fade when Silero opened the segment at an onset with its pad in front (`start` before `onset`); none for the
 * energy VAD (its pre-roll starts in what it judged quiet) or a segment that continues one cut at the length cap
 * (it starts at the cut, inside speech: `start` equals `onset`).
 */
export function onsetFade(silero: boolean, start: number, onset: number): Pick<EngineTranscribeOptions, 'onsetFadeMs'> {
  return silero && start < onset ? { onsetFadeMs: ONSET_FADE_MS } : {};
}
