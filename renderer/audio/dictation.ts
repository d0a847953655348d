// The window's dictation controller (dictation-controller.ts) with the real
// microphone. Kept apart so the controller imports nothing browser-only.
import { webAudioCues } from './cues.js';
import { DictationController } from './dictation-controller.js';
import { openMic } from './mic.js';

export { FRAME_MS } from './dictation-controller.js';

export const dictation = new DictationController(openMic, webAudioCues());
