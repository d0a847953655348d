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
// Binary frames with bit 30 of the first word set (bit 31 clear) carry one
// chunk of a file upload (files:uploadBegin), client -> server:
//   [0..3]  uint32 LE  upload id | 0x40000000
//   [4..11] float64 LE offset of the chunk's first byte in the file
//   [12..]  the bytes
// The server answers each written chunk with a `files:upload` event (to that
// client only); the client keeps at most the ticket's windowBytes unanswered.
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
const UPLOAD_FLAG = 0x40000000;
export const UPLOAD_HEADER_BYTES = 12;

/** Web mode: the numeric id of a session's audio stream, derived from its sessionId ("s<number>"). */
export function audioSessionNumber(sessionId: string): number {
  const match = /^s(\d+)$/.exec(sessionId);
  if (!match) throw new Error(`session id ${sessionId} is not of the form s<number>`);
  return Number(match[1]);
}

export function encodeAudioFrame(sessionNumber: number, frame: Float32Array, startSample?: number): ArrayBuffer {
  // Bit 30 marks upload chunks, so session numbers stay below it (they count sessions from 1).
  if (!Number.isInteger(sessionNumber) || sessionNumber < 0 || sessionNumber >= UPLOAD_FLAG) {
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
  if ((word & UPLOAD_FLAG) !== 0) throw new Error('malformed audio frame (an upload chunk)');
  const withPosition = (word & POSITION_FLAG) !== 0;
  const header = withPosition ? AUDIO_HEADER_BYTES_WITH_POSITION : AUDIO_HEADER_BYTES;
  if (bytes.byteLength < header || (bytes.byteLength - header) % 4 !== 0) throw new Error('malformed audio frame');
  const frame = new Float32Array(copy.buffer, header);
  if (!withPosition) return { sessionNumber: word, frame };
  const startSample = view.getFloat64(4, true);
  if (!Number.isSafeInteger(startSample) || startSample < 0) throw new Error('malformed audio frame (bad sample index)');
  return { sessionNumber: (word & ~POSITION_FLAG) >>> 0, frame, startSample };
}

/** Whether a binary frame is an upload chunk (else it is audio). */
export function isUploadChunk(data: Uint8Array): boolean {
  if (data.byteLength < 4) return false;
  const word = new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true);
  return (word & POSITION_FLAG) === 0 && (word & UPLOAD_FLAG) !== 0;
}

export function encodeUploadChunk(uploadId: number, offset: number, bytes: ArrayBuffer | Uint8Array): ArrayBuffer {
  if (!Number.isInteger(uploadId) || uploadId < 1 || uploadId >= UPLOAD_FLAG) throw new Error(`upload id ${uploadId} is out of range`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error(`upload offset ${offset} is not a byte position`);
  const payload = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const out = new ArrayBuffer(UPLOAD_HEADER_BYTES + payload.byteLength);
  const view = new DataView(out);
  view.setUint32(0, (uploadId | UPLOAD_FLAG) >>> 0, true);
  view.setFloat64(4, offset, true);
  new Uint8Array(out, UPLOAD_HEADER_BYTES).set(payload);
  return out;
}

/** The chunk's id, offset and bytes (a view into `data`, not a copy); throws on a malformed frame. */
export function decodeUploadChunk(data: Uint8Array): { uploadId: number; offset: number; bytes: Uint8Array } {
  if (!isUploadChunk(data) || data.byteLength < UPLOAD_HEADER_BYTES) throw new Error('malformed upload chunk');
  const view = new DataView(data.buffer, data.byteOffset, UPLOAD_HEADER_BYTES);
  const uploadId = (view.getUint32(0, true) & ~UPLOAD_FLAG) >>> 0;
  const offset = view.getFloat64(4, true);
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error('malformed upload chunk (bad offset)');
  return { uploadId, offset, bytes: data.subarray(UPLOAD_HEADER_BYTES) };
}
