// Small file-system helpers with the durability rules the manager relies on:
// JSON written via temp file + fsync + rename (+ directory fsync), and file
// hashing in chunks so the event loop never blocks on a 1 GB model.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { errnoCode } from './errors.js';

/** What the downloader writes through; injectable so tests can simulate ENOSPC. */
export interface WritableFile {
  write(chunk: Buffer): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export type OpenWritable = (filePath: string, mode: 'append' | 'truncate') => Promise<WritableFile>;

export const openWritable: OpenWritable = async (filePath, mode) => {
  const handle = await fs.open(filePath, mode === 'append' ? 'a' : 'w');
  return {
    async write(chunk) {
      let offset = 0;
      while (offset < chunk.length) {
        const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
        offset += bytesWritten;
      }
    },
    sync: () => handle.sync(),
    close: () => handle.close(),
  };
};

// Durable writes live in one place (app/main/util/atomic-file.ts).
export { fsyncDir, writeJsonAtomic } from '../util/atomic-file.js';

/** Parsed JSON, or undefined when the file does not exist. Throws SyntaxError on garbage. */
export async function readJson(filePath: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(filePath, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  return JSON.parse(text) as unknown;
}

export async function fileSize(filePath: string): Promise<number | null> {
  try {
    return (await fs.stat(filePath)).size;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return null;
    throw e;
  }
}

export async function removeIfExists(filePath: string): Promise<void> {
  await fs.rm(filePath, { force: true });
}

/** Feed bytes [0, end) of a file into `hash` (all of it when end is omitted). */
export async function hashFileInto(hash: Hash, filePath: string, end?: number, signal?: AbortSignal): Promise<number> {
  if (end === 0) return 0;
  let total = 0;
  const stream = createReadStream(filePath, {
    highWaterMark: 1 << 20,
    ...(end !== undefined ? { start: 0, end: end - 1 } : {}),
    signal,
  });
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    hash.update(buf);
    total += buf.length;
  }
  return total;
}

export async function sha256File(filePath: string, signal?: AbortSignal): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  const bytes = await hashFileInto(hash, filePath, undefined, signal);
  return { sha256: hash.digest('hex'), bytes };
}
