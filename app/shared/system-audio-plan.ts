// Which capture records a meeting's "Others" track (the computer's own sound
// output) on this machine, and what to tell the user when none can. Linux:
// main spawns the sound server's recorder (meeting/system-audio.ts). Windows
// and macOS: the desktop app's page captures it through getDisplayMedia with
// main's display-media handler answering audio: 'loopback' (WASAPI loopback
// on Windows; on macOS Chromium's ScreenCaptureKit capture from macOS 13, and
// from macOS 14.2 with Electron ≥ 39 the CoreAudio process tap, which needs
// NSAudioCaptureUsageDescription in the app's Info.plist and the "System
// Audio Recording" permission; denied, the track just ends), and sends the PCM
// like the microphone's. Web mode outside Linux has no loopback (the browser
// page is not ours to configure). Electron-free and DOM-free: main decides
// the plan, the renderer turns capture errors into words, tests run both.

export interface CaptureProblem {
  reason: string;
  action: string;
}

export type SystemAudioPlan =
  | { kind: 'main'; how: 'parec/pw-record' }
  | { kind: 'client-loopback'; how: 'wasapi' | 'screencapturekit' | 'coreaudio-tap'; needs: string }
  | { kind: 'unavailable'; problem: CaptureProblem };

export interface PlanInput {
  platform: string;
  /** os.release(): the Darwin kernel version on macOS (22.x = macOS 13, 23.2 = macOS 14.2). */
  osRelease: string;
  /** process.versions.electron (undefined: the web server under Node). */
  electron: string | undefined;
}

function major(version: string): number {
  return Number.parseInt(version.split('.')[0] ?? '', 10);
}

/** macOS version from the Darwin kernel release (Darwin 20 = macOS 11 … Darwin 23 = macOS 14, minor as is). */
export function macosVersion(darwinRelease: string): { major: number; minor: number } | null {
  const [k, m] = darwinRelease.split('.').map((x) => Number.parseInt(x, 10));
  if (k === undefined || !Number.isFinite(k) || k < 20) return null;
  return { major: k - 9, minor: Number.isFinite(m) ? m! : 0 };
}

export function systemAudioPlan(input: PlanInput): SystemAudioPlan {
  if (input.platform === 'linux') return { kind: 'main', how: 'parec/pw-record' };
  if (input.platform !== 'win32' && input.platform !== 'darwin') {
    return {
      kind: 'unavailable',
      problem: { reason: `Recording the system audio is not supported on ${input.platform}.`, action: 'The microphone keeps recording; record the other side separately and transcribe the file.' },
    };
  }
  if (!input.electron) {
    return {
      kind: 'unavailable',
      problem: {
        reason: 'In web mode the system audio can only be recorded on Linux (the server records the sound server\'s monitor).',
        action: 'Use the desktop app to record the system audio here; the microphone keeps recording.',
      },
    };
  }
  if (input.platform === 'win32') return { kind: 'client-loopback', how: 'wasapi', needs: 'Windows 10 or later (WASAPI loopback of the default output device).' };
  const mac = macosVersion(input.osRelease);
  if (!mac || mac.major < 13) {
    return {
      kind: 'unavailable',
      problem: {
        reason: `Recording the system audio needs macOS 13 or later (this is ${mac ? `macOS ${mac.major}` : `Darwin ${input.osRelease}`}).`,
        action: 'Update macOS, or route the other side through a loopback device chosen as the microphone.',
      },
    };
  }
  const tap = major(input.electron) >= 39 && (mac.major > 14 || (mac.major === 14 && mac.minor >= 2));
  return tap
    ? {
      kind: 'client-loopback',
      how: 'coreaudio-tap',
      // The audio comes from the tap, but getDisplayMedia also requires a video track: the screen source main answers
      // with is a ScreenCaptureKit capture, so Screen Recording is needed as well (denied: main refuses up front).
      needs: 'NSAudioCaptureUsageDescription in Info.plist, the "System Audio Recording" permission, and the "Screen & System Audio Recording" permission for the screen track getDisplayMedia requires (stopped at once).',
    }
    : { kind: 'client-loopback', how: 'screencapturekit', needs: 'the "Screen & System Audio Recording" permission.' };
}

/** The page's getDisplayMedia failed or gave no audio: why, in words, and what to do. */
export function describeLoopbackError(platform: string, error: { name?: string; message?: string } | null): CaptureProblem {
  const name = error?.name ?? '';
  const said = error?.message ? ` (${error.message})` : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') {
    return platform === 'darwin'
      ? {
        reason: `macOS did not allow Parakeet to record the system audio${said}.`,
        action: 'Open System Settings › Privacy & Security › Screen & System Audio Recording, allow Parakeet, quit and reopen the app, then start a new meeting.',
      }
      : { reason: `Recording the system audio was refused${said}.`, action: 'Start a new meeting and allow the capture when asked.' };
  }
  if (name === 'NoAudioTrack' || name === 'NotFoundError') {
    return {
      reason: `The capture gave no audio${said}: there is no output device to record, or this system cannot loop it back.`,
      action: platform === 'win32' ? 'Choose an output device in Settings › System › Sound, then start a new meeting.' : 'Choose an output device in System Settings › Sound, then start a new meeting.',
    };
  }
  if (name === 'NotReadableError' || name === 'AbortError') {
    return { reason: `The system audio could not be read${said}: the audio system refused the capture.`, action: 'Close other apps that record the screen or the sound, then start a new meeting.' };
  }
  return { reason: `The system audio cannot be recorded${said || ` (${name || 'unknown error'})`}.`, action: 'The microphone keeps recording; check the sound settings and start a new meeting.' };
}

/** macOS's screen-capture permission as main reads it (systemPreferences.getMediaAccessStatus('screen')): a problem before trying, or null. */
export function screenAccessProblem(status: string): CaptureProblem | null {
  if (status === 'denied' || status === 'restricted') {
    return {
      reason: `macOS does not allow Parakeet to record the screen and system audio (permission ${status}).`,
      action: 'Open System Settings › Privacy & Security › Screen & System Audio Recording, allow Parakeet, quit and reopen the app, then start a new meeting.',
    };
  }
  return null;
}

/**
 * main's answer to a getDisplayMedia request (session.setDisplayMediaRequestHandler): loopback audio with the
 * first screen as the video Chromium requires (the page stops that track at once), only for our own page
 * asking for audio where the plan is a client loopback; anything else is refused.
 */
export function displayMediaAnswer(plan: SystemAudioPlan, request: { trusted: boolean; audioRequested: boolean }, screens: number): 'loopback' | 'refuse' {
  if (plan.kind !== 'client-loopback' || !request.trusted || !request.audioRequested || screens < 1) return 'refuse';
  return 'loopback';
}
