// Electron adapter: the system audio on Windows and macOS. The page calls
// getDisplayMedia({ audio: true, video: true }) (renderer/meeting/loopback.ts)
// and display-media.ts answers with audio: 'loopback' (Chromium: WASAPI
// loopback on Windows, ScreenCaptureKit / the CoreAudio tap on macOS 13+) and
// the first screen as the video track it requires, which the page stops, or
// with null to refuse. Which OS gets it is decided in shared/system-audio-plan.ts;
// both are tested without Electron. This file only hands Electron's pieces over.
import { desktopCapturer, systemPreferences, type Session } from 'electron';
import { screenAccessProblem, type CaptureProblem, type SystemAudioPlan } from '../../shared/system-audio-plan.js';
import { displayMediaHandler, type DisplayMediaStreams } from '../display-media.js';
import type { Logger } from '../log.js';

export function installLoopbackCapture(
  ses: Session,
  plan: SystemAudioPlan,
  trusted: (url: string | undefined) => boolean,
  log: Logger,
  notify: (problem: CaptureProblem) => void,
): void {
  if (plan.kind !== 'client-loopback') return;
  const handler = displayMediaHandler({
    plan,
    trusted,
    screenAccess: () => (process.platform === 'darwin' ? screenAccessProblem(systemPreferences.getMediaAccessStatus('screen')) : null),
    // No thumbnails: only the id is used, and drawing them costs a capture of every screen.
    listScreens: () => desktopCapturer.getSources({ types: ['screen'], thumbnailSize: { width: 0, height: 0 } }),
    notify,
    log,
  });
  ses.setDisplayMediaRequestHandler((request, callback) =>
    // Electron's typings say Streams, but null is its documented-in-code refusal (DisplayMediaDeviceChosen:
    // null/undefined → CAPTURE_FAILURE); an empty object would throw in main.
    handler(request, callback as (streams: DisplayMediaStreams) => void),
  );
  log.info(`system audio: ${plan.how} loopback through getDisplayMedia (needs ${plan.needs})`);
}
