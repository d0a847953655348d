// Electron adapter: the system audio on Windows and macOS. The page calls
// getDisplayMedia({ audio: true, video: true }) (renderer/meeting/loopback.ts)
// and this handler answers with audio: 'loopback' (Chromium: WASAPI loopback
// on Windows, ScreenCaptureKit / the CoreAudio tap on macOS 13+) and the first
// screen as the video track it requires, which the page stops. Which OS gets
// it, and when to refuse, is decided in shared/system-audio-plan.ts (tested);
// this file only talks to Electron. Untested here: no Electron binary, Linux.
import { desktopCapturer, systemPreferences, type Session } from 'electron';
import { displayMediaAnswer, screenAccessProblem, type SystemAudioPlan } from '../shared/system-audio-plan.js';
import type { Logger } from './log.js';

export function installLoopbackCapture(ses: Session, plan: SystemAudioPlan, trusted: (url: string | undefined) => boolean, log: Logger): void {
  if (plan.kind !== 'client-loopback') return;
  ses.setDisplayMediaRequestHandler((request, callback) => {
    const refuse = (why: string): void => {
      log.warn(`display media refused: ${why}`);
      // No stream: the page's getDisplayMedia rejects (NotAllowedError), and says what to do.
      callback({});
    };
    if (process.platform === 'darwin') {
      const problem = screenAccessProblem(systemPreferences.getMediaAccessStatus('screen'));
      if (problem) return refuse(problem.reason);
    }
    desktopCapturer.getSources({ types: ['screen'] }).then(
      (sources) => {
        const answer = displayMediaAnswer(plan, { trusted: trusted(request.frame?.url), audioRequested: request.audioRequested }, sources.length);
        if (answer === 'refuse') return refuse(`not our page asking for audio, or no screen (${request.securityOrigin})`);
        callback({ video: sources[0]!, audio: 'loopback' });
      },
      (error: unknown) => refuse(`no screen source: ${(error as Error).message}`),
    );
  });
  log.info(`system audio: ${plan.how} loopback through getDisplayMedia (needs ${plan.needs})`);
}
