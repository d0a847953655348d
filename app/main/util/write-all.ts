// Writing all of a buffer through a FileHandle. A disk that fills up mid-write returns a short count, not
// an error (write(2)); writing the rest then fails with the reason (ENOSPC, EFBIG), instead of the caller
// counting bytes that are not there.
import type { FileHandle } from 'node:fs/promises';

/** Writes all of `bytes`, at `position` (absent: the file's current position, or its end in append mode). */
export async function writeAll(handle: FileHandle, bytes: Buffer, position?: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const at = position === undefined ? null : position + done;
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, at);
    if (bytesWritten === 0) throw Object.assign(new Error('the disk accepted no more bytes'), { code: 'ENOSPC' });
    done += bytesWritten;
  }
}
