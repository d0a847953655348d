// One app instance per user-data folder. Electron's single-instance lock only
// covers Electron; the desktop app and web mode (or two web servers) sharing a
// folder would both write the settings, the models index and the history
// journals, and each would take the other's live dictation for a crashed one.
// So the services take `<userData>/instance.lock` first: created exclusively,
// holding the owner's pid and host. A lock whose process is gone (a crash, a
// power loss) is taken over; a live one is refused with what to do.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CodedError } from '../engine/protocol.js';

export const LOCK_FILE = 'instance.lock';

interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
  mode: string;
}

export interface InstanceLock {
  readonly file: string;
  /** Removes the lock file if this lock created it (a re-entry by the same process leaves it). */
  release(): Promise<void>;
}

function readOwner(text: string): LockOwner | null {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0 || typeof value.host !== 'string') return null;
    return { pid: value.pid, host: value.host, startedAt: String(value.startedAt ?? '?'), mode: String(value.mode ?? '?') };
  } catch {
    return null;
  }
}

/** Whether a process of this machine is alive (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LockOptions {
  mode: string;
  /** Liveness check (tests inject one); default: signal 0 to the pid. */
  alive?: (pid: number) => boolean;
}

/**
 * Takes the folder's lock, or throws USER_DATA_IN_USE naming the other instance. The same process may take
 * it again (several services in one test process); only the first taker removes the file.
 */
export async function acquireInstanceLock(userDataDir: string, options: LockOptions): Promise<InstanceLock> {
  const alive = options.alive ?? processAlive;
  const file = path.join(userDataDir, LOCK_FILE);
  await fs.mkdir(userDataDir, { recursive: true });
  const me: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), mode: options.mode };
  for (let attempt = 0; attempt < 10; attempt += 1) {
    try {
      const handle = await fs.open(file, 'wx');
      try {
        await handle.writeFile(`${JSON.stringify(me)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return { file, release: () => fs.rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    const owner = readOwner(text);
    if (owner && owner.host === me.host && owner.pid === me.pid) return { file, release: async () => undefined };
    if (owner && (owner.host !== me.host || alive(owner.pid))) {
      const where = owner.host === me.host ? `process ${owner.pid}` : `process ${owner.pid} on ${owner.host}`;
      throw new CodedError(
        'USER_DATA_IN_USE',
        `Another Parakeet instance (${owner.mode}, ${where}, started ${owner.startedAt}) is using ${userDataDir}. ` +
          'Close it first, or give this one another folder (PARAKEET_USER_DATA_DIR; web mode: --user-data DIR)' +
          (owner.host === me.host ? '.' : `; if that instance is gone, delete ${file}.`),
      );
    }
    if (!owner) {
      // Empty or unreadable: another instance may be between creating and writing it. Only an old one is
      // stale (cut by a power loss); a fresh one is given a moment.
      const stat = await fs.stat(file).catch(() => null);
      if (stat && Date.now() - stat.mtimeMs < 2_000) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
    }
    // The owner is gone (or the file is old and unreadable): take it over.
    await fs.rm(file, { force: true });
  }
  throw new CodedError('USER_DATA_IN_USE', `Could not take ${file}: another instance keeps creating it. Close the other Parakeet instance.`);
}
