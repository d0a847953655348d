// Is this path a regular file, and how long? A device (/dev/zero), a FIFO or a
// socket stats as 0 bytes, and so do /proc files that still read content
// (/proc/self/environ): calling any of them "empty" is wrong, and reading one
// may never end. Callers that take a file from a user ask this first.
import fs from 'node:fs/promises';

export type FileCheck =
  | { kind: 'regular'; size: number }
  | { kind: 'empty' }
  | { kind: 'not-regular'; what: string };

function describeNonRegular(st: import('node:fs').Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isFIFO()) return 'a pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Throws the fs error (ENOENT, EACCES, …) when the path cannot be looked at. */
export async function checkRegularFile(filePath: string): Promise<FileCheck> {
  const st = await fs.stat(filePath);
  if (!st.isFile()) return { kind: 'not-regular', what: describeNonRegular(st) };
  if (st.size > 0) return { kind: 'regular', size: st.size };
  // 0 bytes: empty, or a file whose size says nothing (procfs, sysfs). One byte tells.
  const handle = await fs.open(filePath, 'r');
  try {
    const { bytesRead } = await handle.read(Buffer.alloc(1), 0, 1, 0);
    return bytesRead > 0 ? { kind: 'not-regular', what: 'a file whose size reads 0 bytes but has content (like a /proc file)' } : { kind: 'empty' };
  } finally {
    await handle.close();
  }
}

/** The sentence for a non-regular file. */
export function notRegularMessage(filePath: string, what: string): string {
  return `${filePath} is not a regular file (${what}).`;
}
