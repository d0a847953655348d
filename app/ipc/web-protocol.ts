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
// The session number is the index the server assigned in the SessionInfo
// (`audioSessionNumber` below), so text ids never have to be parsed per frame.
import type { EventName, InvokeChannel, Result } from './contract.js';

export type ClientMessage = { t: 'invoke'; id: number; channel: InvokeChannel; payload?: unknown };
export type ServerMessage =
  | { t: 'result'; id: number; result: Result<unknown> }
  | { t: 'event'; event: EventName; data: unknown };

export const BRIDGE_PATH = '/bridge';
export const AUDIO_HEADER_BYTES = 4;

/** Web mode: the numeric id of a session's audio stream, derived from its sessionId ("s<number>"). */
export function audioSessionNumber(sessionId: string): number {
  const match = /^s(\d+)$/.exec(sessionId);
  if (!match) throw new Error(`session id ${sessionId} is not of the form s<number>`);
  return Number(match[1]);
}

export function encodeAudioFrame(sessionNumber: number, frame: Float32Array): ArrayBuffer {
  const out = new ArrayBuffer(AUDIO_HEADER_BYTES + frame.byteLength);
  new DataView(out).setUint32(0, sessionNumber, true);
  new Float32Array(out, AUDIO_HEADER_BYTES).set(frame);
  return out;
}

export function decodeAudioFrame(data: ArrayBuffer | Uint8Array): { sessionNumber: number; frame: Float32Array } {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.byteLength < AUDIO_HEADER_BYTES || (bytes.byteLength - AUDIO_HEADER_BYTES) % 4 !== 0) {
    throw new Error('malformed audio frame');
  }
  const copy = bytes.slice();  // aligned copy
  const sessionNumber = new DataView(copy.buffer).getUint32(0, true);
  return { sessionNumber, frame: new Float32Array(copy.buffer, AUDIO_HEADER_BYTES) };
}
