// Free-space check before a download or import starts.
import fs from 'node:fs/promises';
import { diskFullError } from './errors.js';

/** Bytes available to this (unprivileged) process in the file system holding `dir`. */
export type FreeSpaceProbe = (dir: string) => Promise<number | null>;

export const statfsFreeSpace: FreeSpaceProbe = async (dir) => {
  try {
    const s = await fs.statfs(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    // statfs is unavailable on some platforms/file systems: do not block the
    // download on it; ENOSPC while writing is still handled.
    return null;
  }
};

/** Headroom kept free beyond the file itself (the OS and the app need some). */
export const DISK_HEADROOM_BYTES = 64 * 1024 * 1024;

export async function ensureFreeSpace(probe: FreeSpaceProbe, dir: string, bytesNeeded: number): Promise<void> {
  if (bytesNeeded <= 0) return;
  const available = await probe(dir);
  if (available === null) return;
  if (available < bytesNeeded + DISK_HEADROOM_BYTES) {
    throw diskFullError(bytesNeeded + DISK_HEADROOM_BYTES, available, dir);
  }
}
