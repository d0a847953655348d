// The last lines of the log file for the diagnostics report. Only the file's
// end is read: the log may be megabytes, the report wants ~200 lines.
import fs from 'node:fs/promises';

/** Bytes read from the end of the file; 200 lines of a busy log fit easily, a few long stack traces too. */
const TAIL_BYTES = 256 * 1024;

/** The last `count` lines of `file` ([] when it does not exist yet). */
export async function tailLines(file: string, count: number): Promise<string[]> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    // Cut mid-file: the first piece is a partial line. The last piece is '' after the final newline.
    if (start > 0) lines.shift();
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-count);
  } finally {
    await handle.close();
  }
}
