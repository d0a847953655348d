// The meeting's system audio on Windows and macOS (desktop app): a
// getDisplayMedia capture that main's display-media handler answers with
// loopback audio (app/main/electron/loopback-capture.ts); the video track Chromium
// requires is stopped at once, and the audio goes through the same capture
// worklet as the microphone, so its frames reach main like the microphone's.
// Failures are MicErrors worded by shared/system-audio-plan.ts (e.g. macOS's
// screen-recording permission denied, and where to allow it).
import { describeLoopbackError } from '../../app/shared/system-audio-plan.js';
import { MicError, type MicHandle, type MicOptions } from '../audio/mic-types.js';
import { openCapture } from '../audio/mic.js';

function platform(): string {
  const ua = navigator.userAgent;
  return /Mac OS X/.test(ua) ? 'darwin' : /Windows/.test(ua) ? 'win32' : 'linux';
}

async function loopbackStream(): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getDisplayMedia) {
    const p = describeLoopbackError(platform(), { name: 'NotSupportedError', message: 'getDisplayMedia is not available in this page' });
    throw new MicError('MIC_UNSUPPORTED', `${p.reason} ${p.action}`);
  }
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getDisplayMedia({ audio: true, video: true });
  } catch (error) {
    const p = describeLoopbackError(platform(), error as { name?: string; message?: string });
    throw new MicError((error as { name?: string }).name === 'NotAllowedError' ? 'PERMISSION_DENIED' : 'MIC_FAILED', `${p.reason} ${p.action}`);
  }
  for (const video of stream.getVideoTracks()) video.stop();
  const audio = stream.getAudioTracks();
  if (!audio.length) {
    const p = describeLoopbackError(platform(), { name: 'NoAudioTrack' });
    throw new MicError('MIC_NOT_FOUND', `${p.reason} ${p.action}`);
  }
  return new MediaStream(audio);
}

export function openLoopback(opts: Omit<MicOptions, 'audio'>): Promise<MicHandle> {
  return openCapture(loopbackStream, opts);
}
