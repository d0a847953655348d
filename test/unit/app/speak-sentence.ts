// One spoken sentence (half a second of quiet, a second of speech-like sound, a second of quiet) pushed into a
// dictation session as the capture worklet sends it: 640-sample frames, one event-loop turn apart.
import { setImmediate as tick } from 'node:timers/promises';
import type { SessionManager } from '../../../app/main/sessions/session-manager.js';
import { concat, frames, quiet, speechLike } from '../../support/audio/signals.js';

export async function speakSentence(manager: SessionManager, sessionId: string, owner: string): Promise<void> {
  let position = 0;
  for (const frame of frames(concat(quiet(0.5, 1), speechLike(1.0, 2), quiet(1.0, 3)), 640)) {
    manager.pushAudio(sessionId, frame, owner, position);
    position += frame.length;
    await tick();
  }
}
