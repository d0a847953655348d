// The web bridge's wire protocol (web mode: the renderer in a browser talks to
// the main-process services over a loopback WebSocket instead of Electron IPC).
//
// Connection: ws://127.0.0.1:<port>/bridge?token=<token>  (the token is
// generated per server start and handed to the page in its URL fragment).
//
// Text frames are JSON:
//   client -> server  { t: 'invoke', id: number, channel: InvokeChannel, payload?: unknown }
//   server -> client  { t: 'result', id: number, result: Result<unknown> }
//   server -> client  { t: 'event', event: EventName, data: unknown }
// Binary frames carry dictation audio, client -> server:
//   [0..3]  uint32 LE  session number
//   [4..]   float32 LE mono samples
// or, when bit 31 of the first word is set (the sender counts samples):
//   [0..3]  uint32 LE  session number | 0x80000000
//   [4..11] float64 LE index of the frame's first sample in the session's stream
//   [12..]  float32 LE mono samples
// The session number is the index the server assigned in the SessionInfo
// (`audioSessionNumber` below), so text ids never have to be parsed per frame.
// The sample index lets the server count lost or duplicated samples exactly.
import type { EventName, InvokeChannel, Result } from './contract.js';

export type ClientMessage = { t: 'invoke'; id: number; channel: InvokeChannel; payload?: unknown };
export type ServerMessage =
  | { t: 'result'; id: number; result: Result<unknown> }
  | { t: 'event'; event: EventName; data: unknown };

export const BRIDGE_PATH = '/bridge';
export const AUDIO_HEADER_BYTES = 4;
export const AUDIO_HEADER_BYTES_WITH_POSITION = 12;
const POSITION_FLAG = 0x80000000;

/** Web mode: the numeric id of a session's audio stream, derived from its sessionId ("s<number>"). */
export function audioSessionNumber(sessionId: string): number {
  const match = /^s(\d+)$/.exec(sessionId);
  if (!match) throw new Error(`session id ${sessionId} is not of the form s<number>`);
  return Number(match[1]);
}

export function encodeAudioFrame(sessionNumber: number, frame: Float32Array, startSample?: number): ArrayBuffer {
  if (!Number.isInteger(sessionNumber) || sessionNumber < 0 || sessionNumber >= POSITION_FLAG) {
    throw new Error(`session number ${sessionNumber} is out of range`);
  }
  const withPosition = startSample !== undefined;
  const header = withPosition ? AUDIO_HEADER_BYTES_WITH_POSITION : AUDIO_HEADER_BYTES;
  const out = new ArrayBuffer(header + frame.byteLength);
  const view = new DataView(out);
  view.setUint32(0, withPosition ? (sessionNumber | POSITION_FLAG) >>> 0 : sessionNumber, true);
  if (startSample !== undefined) view.setFloat64(4, startSample, true);
  new Float32Array(out, header).set(frame);
  return out;
}

export function decodeAudioFrame(data: ArrayBuffer | Uint8Array): { sessionNumber: number; frame: Float32Array; startSample?: number } {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.byteLength < AUDIO_HEADER_BYTES) throw new Error('malformed audio frame');
  // An aligned copy with its own buffer (Node's Buffer#slice would return a view into a shared pool).
  const copy = new Uint8Array(bytes);
  const view = new DataView(copy.buffer);
  const word = view.getUint32(0, true);
  const withPosition = (word & POSITION_FLAG) !== 0;
  const header = withPosition ? AUDIO_HEADER_BYTES_WITH_POSITION : AUDIO_HEADER_BYTES;
  if (bytes.byteLength < header || (bytes.byteLength - header) % 4 !== 0) throw new Error('malformed audio frame');
  const frame = new Float32Array(copy.buffer, header);
  if (!withPosition) return { sessionNumber: word, frame };
  const startSample = view.getFloat64(4, true);
  if (!Number.isSafeInteger(startSample) || startSample < 0) throw new Error('malformed audio frame (bad sample index)');
  return { sessionNumber: (word & ~POSITION_FLAG) >>> 0, frame, startSample };
}
