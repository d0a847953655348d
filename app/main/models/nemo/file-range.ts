// Reading byte ranges of an untrusted archive by offset (a .nemo is never unpacked to disk): every
// read is checked against the range it must lie in, so a declared size past the end is an error,
// not a short read.
import type { FileHandle } from 'node:fs/promises';

export class NemoFormatError extends Error {
  readonly code = 'NEMO_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'NemoFormatError';
  }
}

/** A window [start, start + size) of an open file. */
export class FileRange {
  constructor(
    readonly handle: FileHandle,
    readonly start: number,
    readonly size: number,
    readonly what: string,
  ) {}

  /** `length` bytes at `offset` (relative to the range); throws when they do not lie inside it. */
  async read(offset: number, length: number): Promise<Uint8Array> {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > this.size) {
      throw new NemoFormatError(`${this.what}: ${length} bytes at ${offset} lie outside its ${this.size} bytes (truncated or corrupt)`);
    }
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(out, done, length - done, this.start + offset + done);
      if (bytesRead === 0) throw new NemoFormatError(`${this.what}: the file ends early (truncated)`);
      done += bytesRead;
    }
    return out;
  }

  /** A sub-range, checked to lie inside this one. */
  sub(offset: number, size: number, what: string): FileRange {
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(size) || offset < 0 || size < 0 || offset + size > this.size) {
      throw new NemoFormatError(`${what}: declared at ${offset} with ${size} bytes, past the end of ${this.what} (${this.size} bytes): truncated or corrupt`);
    }
    return new FileRange(this.handle, this.start + offset, size, what);
  }
}
