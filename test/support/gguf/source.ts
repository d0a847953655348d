// Random-access byte sources for the reader: a file read by offset through a
// small window (so multi-GB files are never loaded whole) or an in-memory buffer.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface ByteSource {
  readonly size: number;
  /** Exactly `len` bytes at `pos`; the caller guarantees pos + len <= size. */
  read(pos: number, len: number): Uint8Array;
  close(): void;
}

export class MemorySource implements ByteSource {
  constructor(private readonly bytes: Uint8Array) {}
  get size(): number {
    return this.bytes.length;
  }
  read(pos: number, len: number): Uint8Array {
    return this.bytes.subarray(pos, pos + len);
  }
  close(): void {}
}

export class FileSource implements ByteSource {
  readonly size: number;
  private fd: number | undefined;
  private window = new Uint8Array(0);
  private windowStart = 0;

  constructor(readonly path: string, private readonly windowSize = 1 << 20) {
    this.fd = openSync(path, 'r');
    this.size = fstatSync(this.fd).size;
  }

  private readInto(dst: Uint8Array, pos: number): void {
    if (this.fd === undefined) throw new Error(`${this.path}: source closed`);
    let done = 0;
    while (done < dst.length) {
      const n = readSync(this.fd, dst, done, dst.length - done, pos + done);
      if (n === 0) throw new Error(`${this.path}: unexpected end of file at ${pos + done}`);
      done += n;
    }
  }

  read(pos: number, len: number): Uint8Array {
    if (len > this.windowSize) {
      const out = new Uint8Array(len);
      this.readInto(out, pos);
      return out;
    }
    if (pos < this.windowStart || pos + len > this.windowStart + this.window.length) {
      const n = Math.min(this.windowSize, this.size - pos);
      this.window = new Uint8Array(n);
      this.windowStart = pos;
      this.readInto(this.window, pos);
    }
    return this.window.subarray(pos - this.windowStart, pos - this.windowStart + len);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
