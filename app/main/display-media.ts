// main's answer to the page's getDisplayMedia (the meeting's system audio on
// Windows and macOS), Electron-free so it is tested with a fake capturer and a
// fake callback; loopback-capture.ts hands it Electron's pieces.
//
// How Electron 40.8.5 takes the answer (shell/browser/electron_browser_context.cc,
// DisplayMediaDeviceChosen): null or undefined → the request fails
// (CAPTURE_FAILURE) and the page's promise rejects; an object without `video`
// while the page asked for video → a TypeError thrown into main ("Video was
// requested, but no video stream was provided"), which without a handler is
// Electron's "A JavaScript error occurred in the main process" box. So a
// refusal is always null, and an answer always carries the screen.
import { displayMediaAnswer, type CaptureProblem, type SystemAudioPlan } from '../shared/system-audio-plan.js';
import type { Logger } from './log.js';

/** The parts of Electron's display-media request this decision reads. */
export interface DisplayMediaRequest {
  frame: { url: string } | null;
  securityOrigin: string;
  videoRequested: boolean;
  audioRequested: boolean;
}

/** A desktopCapturer screen source (id and name are what Electron reads from it). */
export interface ScreenSource {
  id: string;
  name: string;
}

/** What main passes to Electron's callback: the screen plus loopback audio, or null to refuse. */
export type DisplayMediaStreams = { video: ScreenSource; audio: 'loopback' } | null;

export interface DisplayMediaDeps {
  plan: SystemAudioPlan;
  /** Is this URL our renderer? */
  trusted: (url: string | undefined) => boolean;
  /** macOS: the screen-recording permission as a problem before trying (screenAccessProblem), else null. */
  screenAccess: () => CaptureProblem | null;
  /** desktopCapturer.getSources({ types: ['screen'] }). */
  listScreens: () => Promise<ScreenSource[]>;
  /** Tells the user why (a notice): the page only sees its promise rejected. */
  notify: (problem: CaptureProblem) => void;
  log: Logger;
}

export type DisplayMediaHandler = (request: DisplayMediaRequest, callback: (streams: DisplayMediaStreams) => void) => void;

export function displayMediaHandler(deps: DisplayMediaDeps): DisplayMediaHandler {
  return (request, callback) => {
    // Exactly one answer per request, whatever happens below.
    let answered = false;
    const answer = (streams: DisplayMediaStreams): void => {
      if (answered) return;
      answered = true;
      callback(streams);
    };
    const refuse = (why: string, problem?: CaptureProblem): void => {
      deps.log.warn(`display media refused: ${why}`);
      if (problem) deps.notify(problem);
      answer(null);
    };
    const screen = deps.screenAccess();
    if (screen) return refuse(screen.reason, screen);
    deps.listScreens().then(
      (sources) => {
        const verdict = displayMediaAnswer(deps.plan, { trusted: deps.trusted(request.frame?.url), audioRequested: request.audioRequested }, sources.length);
        if (verdict === 'refuse') return refuse(`not our page asking for audio, or no screen (${request.securityOrigin})`);
        answer({ video: sources[0]!, audio: 'loopback' });
      },
      (error: unknown) =>
        refuse(`no screen source: ${(error as Error).message}`, {
          reason: `The screen list needed to record the system audio could not be read (${(error as Error).message}).`,
          action: 'Allow Parakeet in the screen-recording settings of your system, then start a new meeting.',
        }),
    );
  };
}
