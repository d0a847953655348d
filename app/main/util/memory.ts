// Memory as the OS defines it for "how much can a program still get": on Linux `MemAvailable` from
// /proc/meminfo (free pages plus the page cache and reclaimable memory the kernel would give back; what
// `free` shows as "available"), elsewhere os.freemem() (macOS and Windows report available memory there).
// os.freemem() on Linux is MemFree, which leaves out the page cache and reads far too low. The CPU row
// in Devices and the diagnostics report both use this, so they show the same number.
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface SystemMemory {
  totalBytes: number;
  availableBytes: number;
  /** Where availableBytes came from. */
  source: 'MemAvailable' | 'os.freemem';
}

/** Parses /proc/meminfo's MemTotal and MemAvailable (kB = KiB there); null when absent. */
export function parseMeminfo(text: string): { totalBytes: number; availableBytes: number } | null {
  const field = (name: string): number | null => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : null;
  };
  const total = field('MemTotal');
  const available = field('MemAvailable');
  return total !== null && available !== null ? { totalBytes: total, availableBytes: available } : null;
}

export function systemMemory(readMeminfo: () => string = () => readFileSync('/proc/meminfo', 'utf8')): SystemMemory {
  if (process.platform === 'linux') {
    try {
      const parsed = parseMeminfo(readMeminfo());
      if (parsed) return { ...parsed, source: 'MemAvailable' };
    } catch {
      // not readable (a sandbox): the portable figure
    }
  }
  return { totalBytes: os.totalmem(), availableBytes: os.freemem(), source: 'os.freemem' };
}
