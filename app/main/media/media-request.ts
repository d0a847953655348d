// One media request answered, the same for both hosts (Electron's protocol
// handler and the web server turn it into their own response): GET or HEAD of
// `<entry id>/<source>.wav`, with Range for seeking. The body is made range by
// range in chunks (wav-source.ts), so a long meeting is never in memory.
import { CodedError } from '../../../types/errors.js';
import { parseByteRange } from './byte-range.js';
import { partsOf, type EntryAudio } from './entry-sources.js';
import { parseMediaPath } from './media-url.js';
import { WavSource } from './wav-source.js';

export interface MediaHistory {
  /** The entry's kind, state and tracks, without its transcript (a request must not read a meeting's text). */
  audioOf(id: string): Promise<EntryAudio>;
  audioDirOf(id: string): string;
}

export interface MediaRequest {
  method: string;
  /** The path after the host's media base: `<entry id>/<source>.wav`. */
  path: string;
  range: string | null;
}

export interface MediaAnswer {
  status: number;
  headers: Record<string, string>;
  /** null: no body (HEAD; errors carry a short text in `text`). The host must iterate it or close() it. */
  body: MediaBody | null;
  text?: string;
}

const CHUNK_BYTES = 256 * 1024;
const BASE_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'accept-ranges': 'bytes' };

const STATUS: Partial<Record<string, number>> = { NOT_FOUND: 404, BAD_ARGUMENT: 403, BUSY: 409 };

function refuse(status: number, text: string): MediaAnswer {
  return { status, headers: { ...BASE_HEADERS, 'content-type': 'text/plain; charset=utf-8' }, body: null, text };
}

/** The bytes of a range, chunk by chunk; closing (or finishing) releases the files. */
export interface MediaBody extends AsyncIterable<Buffer> {
  close(): Promise<void>;
}

function bodyOf(source: WavSource, start: number, end: number): MediaBody {
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await source.close();
  };
  return {
    close,
    async *[Symbol.asyncIterator]() {
      try {
        for (let at = start; at <= end && !closed; at += CHUNK_BYTES) yield await source.read(at, Math.min(end, at + CHUNK_BYTES - 1));
      } finally {
        await close();
      }
    },
  };
}

export async function answerMediaRequest(history: MediaHistory, request: MediaRequest): Promise<MediaAnswer> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return { ...refuse(405, 'method not allowed'), headers: { ...refuse(405, '').headers, allow: 'GET, HEAD' } };
  const target = parseMediaPath(request.path);
  if (!target) return refuse(404, 'not a media path');
  let source: WavSource;
  try {
    const entry = await history.audioOf(target.entryId);
    source = await WavSource.open(await partsOf(entry, target.source, history.audioDirOf(target.entryId)));
  } catch (error) {
    const code = error instanceof CodedError ? error.code : 'IO_ERROR';
    return refuse(STATUS[code] ?? 500, error instanceof Error ? error.message : String(error));
  }
  const range = parseByteRange(request.range, source.size);
  if (range.kind === 'unsatisfiable') {
    await source.close();
    return { ...refuse(416, 'range not satisfiable'), headers: { ...refuse(416, '').headers, 'content-range': `bytes */${source.size}` } };
  }
  const { start, end } = range.kind === 'partial' ? range.range : { start: 0, end: source.size - 1 };
  const headers: Record<string, string> = {
    ...BASE_HEADERS,
    'content-type': 'audio/wav',
    'content-length': String(end - start + 1),
    ...(range.kind === 'partial' ? { 'content-range': `bytes ${start}-${end}/${source.size}` } : {}),
  };
  const status = range.kind === 'partial' ? 206 : 200;
  if (request.method === 'HEAD') {
    await source.close();
    return { status, headers, body: null };
  }
  return { status, headers, body: bodyOf(source, start, end) };
}
