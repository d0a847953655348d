// What the user can do about an error, by code. Messages from the main
// process say what happened; this adds the next step, in words. DOM-free.
import type { IpcError, Notice, NoticeLevel } from '../app/ipc/contract.js';

const ACTIONS: Record<string, string> = {
  NO_MODEL: 'Open the Models view and download or import a model, then set it active.',
  NO_DIARIZER: 'Choose a speaker model (a Sortformer .gguf) in Settings › Speakers, or untick Speakers.',
  DIARIZER_INVALID: 'The file is not a speaker model this app runs: choose a Streaming Sortformer 4spk-v2 .gguf in Settings › Speakers.',
  DIARIZER_FAILED: 'The speaker model gave no result for this audio; the transcript is kept. See the log (Settings › About › Copy diagnostics).',
  MODEL_INVALID: 'The file is not a usable Parakeet model. Pick another .gguf, or download one from the Models view.',
  ENGINE_MISSING: 'The native engine is not built. Run "npm run build:native", then restart the app.',
  ENGINE_CRASHED: 'The engine restarts by itself; if this repeats, choose the CPU in the Devices view.',
  DEVICE_UNAVAILABLE: 'Choose another device (or Auto) in the Devices view.',
  OUT_OF_MEMORY: 'Choose a smaller (more quantized) model or the CPU in the Devices view.',
  BUSY: 'Wait for the current transcription to finish, then try again.',
  BAD_AUDIO: 'Check the input device in Settings.',
  PERMISSION_DENIED:
    'Allow microphone access: click the microphone icon in the address bar (or your system privacy settings), then press Start again.',
  MIC_NOT_FOUND: 'Connect a microphone, or choose another input in Settings, then press Start again.',
  MIC_BUSY: 'Another application is using the microphone. Close it, or choose another input in Settings.',
  MIC_ENDED: 'The microphone stopped (unplugged?). Reconnect it and press Start again.',
  MIC_UNSUPPORTED: 'This browser cannot capture audio here; use a current Chromium-based browser or the desktop app.',
  NETWORK: 'Check the network connection (and proxy), then press Retry.',
  HTTP_STATUS: 'The server refused the download. Check the mirror endpoint in Settings, then retry.',
  HASH_MISMATCH: 'The download was corrupted and has been deleted. Download it again.',
  SIZE_MISMATCH: 'The download was incomplete and has been deleted. Download it again.',
  HASH_UNAVAILABLE: 'The server did not say what the file should contain, so it cannot be verified. Try another mirror.',
  DISK_FULL: 'Free some disk space, then press Retry.',
  INSECURE_URL: 'Use an https:// mirror endpoint in Settings.',
  HOST_NOT_ALLOWED: 'The download was redirected to an unexpected host. Check the mirror endpoint in Settings.',
  TOO_MANY_REDIRECTS: 'Check the mirror endpoint in Settings.',
  UNSUPPORTED_MODEL: 'This model is listed for reference; the engine cannot run it yet. Choose another one.',
  IO_ERROR: 'Check that the models folder is writable and has free space.',
  DISCONNECTED: 'The app is reconnecting. If it was restarted, open the new address it printed in its terminal.',
  UNAUTHORIZED: 'Open the address printed by "npm run web" (it carries the access token).',
  MEETING_RECORDING: 'Stop the meeting in the Meeting view to dictate, or add a marker there.',
  SESSION_NOT_FOUND: 'Press Start to begin a new dictation.',
  NOT_SUPPORTED: 'This is not available in this mode.',
  INVALID_PAYLOAD: 'Check what you typed; if it looks right, the log has the details.',
};

export function actionFor(code: string): string | undefined {
  return ACTIONS[code];
}

/**
 * The error's message in words for a person. A refused payload names the channel and the field in the
 * contract's terms ("engine:loadModel: payload.path: is not an absolute path"); that never reaches the user
 * as such: the field and the problem are kept, the channel goes (issue 44 item 4).
 */
export function plainMessage(error: IpcError): string {
  if (error.code !== 'INVALID_PAYLOAD') return error.message;
  const m = /^[\w:]+: (?:payload\.?)?([\w.[\]]*):? (.*)$/.exec(error.message);
  if (!m) return 'The app sent a request the service could not accept.';
  const field = (m[1] ?? '').split('.').pop()?.replace(/\[\d+\]/g, '') ?? '';
  const words = field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const problem = (m[2] ?? '').replace(/\.$/, '');
  return words ? `The ${words} ${problem.startsWith('expected') ? `was wrong (${problem})` : problem}.` : `The request was wrong (${problem}).`;
}

/** A notice for a failed request, with the next step filled in when we know it. */
export function noticeFromError(error: IpcError, level: NoticeLevel = 'error', context?: string): Notice {
  const text = plainMessage(error);
  const message = context ? `${context}: ${text}` : text;
  const action = actionFor(error.code);
  return action ? { level, code: error.code, message, action } : { level, code: error.code, message };
}

/**
 * A failed file transcription: the same notice, but file problems get file advice (the generic actions
 * above speak of microphones and the models folder).
 */
const FILE_ACTIONS: Record<string, string> = {
  NOT_FOUND: 'Check the path: it must be the full path of an audio file on this machine.',
  BAD_AUDIO: 'WAV is read directly; other formats need ffmpeg or sox on this machine (the message says which step failed).',
  IO_ERROR: 'Check that your user can read the file.',
};

/** A failed file transcription, in words, for the job's own place in the Files view: what happened, what to do. */
export function fileErrorText(error: IpcError): string {
  // A refused argument's message says what to do itself; only a decoder refusal gets the decoder advice.
  const action = error.code === 'BAD_ARGUMENT'
    ? (/decoder/i.test(error.message) ? 'Choose a decoder this model has (or Auto).' : undefined)
    : FILE_ACTIONS[error.code] ?? actionFor(error.code);
  return action ? `${plainMessage(error)} ${action}` : plainMessage(error);
}

/** A failed model import, in words, shown next to Import: advice about the file, not about downloads. */
export function importErrorText(error: IpcError): string {
  let action: string | undefined;
  if (/does not exist|not found/.test(error.message) || error.code === 'NOT_FOUND' || error.code === 'INVALID_PAYLOAD') {
    action = 'Check the path: it must be the full path of a .gguf or .nemo file on this machine.';
  } else if (error.code === 'IO_ERROR') action = 'Check that your user can read the file, and that the models folder is writable and has free space.';
  else action = actionFor(error.code);
  return action ? `${plainMessage(error)} ${action}` : plainMessage(error);
}

export function fileNoticeFromError(error: IpcError, context: string): Notice {
  const notice = noticeFromError(error, 'error', context);
  const action = FILE_ACTIONS[error.code];
  return action ? { ...notice, action } : notice;
}
