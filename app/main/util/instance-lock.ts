// One app instance per user-data folder. Electron's single-instance lock only
// covers Electron; the desktop app and web mode (or two web servers) sharing a
// folder would both write the settings, the models index and the history
// journals, and each would take the other's live dictation for a crashed one.
// So the services take `<userData>/instance.lock` first: created exclusively,
// holding the owner's pid and host. A lock whose process is gone (a crash, a
// power loss) is taken over; a live one is refused with what to do.
//
// A pid alone does not say the owner is alive: pids are reused (after a reboot
// the lock's pid can be any other process). So the lock also holds the owner's
// identity — the boot and the process's start time (processIdentity) — and a
// live pid whose identity differs is another process: the lock is stale.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CodedError } from '../../../types/errors.js';

export const LOCK_FILE = 'instance.lock';

interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
  mode: string;
  /** processIdentity of the owner when it took the lock (null: not readable on that OS, or an older lock). */
  identity: string | null;
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
    return {
      pid: value.pid, host: value.host, startedAt: String(value.startedAt ?? '?'), mode: String(value.mode ?? '?'),
      identity: typeof value.identity === 'string' ? value.identity : null,
    };
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

/**
 * What tells this run of a process from a later one with the same pid: on Linux the boot id and the start
 * time in clock ticks (/proc/<pid>/stat, field 22); elsewhere on Unix `ps -o lstart=`. null where neither
 * can be read (Windows: the lock then trusts the pid alone, and the message says how to recover).
 */
export function processIdentity(pid: number): string | null {
  if (process.platform === 'linux') {
    try {
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const startTicks = fields[19];
      return startTicks ? `linux:${boot}:${startTicks}` : null;
    } catch {
      return null;
    }
  }
  if (process.platform === 'win32') return null;
  const ps = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
  const started = ps.status === 0 ? ps.stdout.trim() : '';
  return started ? `ps:${started}` : null;
}

export interface LockOptions {
  mode: string;
  /** Liveness check (tests inject one); default: signal 0 to the pid. */
  alive?: (pid: number) => boolean;
  /** Identity of a live pid (tests inject one); default: processIdentity. */
  identity?: (pid: number) => string | null;
}

/** The lock's owner still runs: its pid is alive and, where both are known, it is the same process (not a reused pid). */
function ownerRuns(owner: LockOwner, alive: (pid: number) => boolean, identity: (pid: number) => string | null): boolean {
  if (!alive(owner.pid)) return false;
  if (owner.identity === null) return true;
  const now = identity(owner.pid);
  return now === null || now === owner.identity;
}

/**
 * Takes the folder's lock, or throws USER_DATA_IN_USE naming the other instance. The same process may take
 * it again (several services in one test process); only the first taker removes the file.
 */
export async function acquireInstanceLock(userDataDir: string, options: LockOptions): Promise<InstanceLock> {
  const alive = options.alive ?? processAlive;
  const identity = options.identity ?? processIdentity;
  const file = path.join(userDataDir, LOCK_FILE);
  await fs.mkdir(userDataDir, { recursive: true });
  const me: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: new Date().toISOString(), mode: options.mode, identity: identity(process.pid) };
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
    if (owner && (owner.host !== me.host || ownerRuns(owner, alive, identity))) {
      const where = owner.host === me.host ? `process ${owner.pid}` : `process ${owner.pid} on ${owner.host}`;
      throw new CodedError(
        'USER_DATA_IN_USE',
        `Another Parakeet instance (${owner.mode}, ${where}, started ${owner.startedAt}) is using ${userDataDir}. ` +
          'Close it first, or give this one another folder (PARAKEET_USER_DATA_DIR; web mode: --user-data DIR). ' +
          `If no Parakeet is running${owner.host === me.host ? '' : ` on ${owner.host}`} (it crashed), delete ${file} and start again.`,
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
