// `npm run bench -- --under-load`: the encoder with and without a competing CPU-bound process, for
// 1 thread, all threads, and all threads with LoadOptions.adaptiveThreads. On a machine of n cores
// a competitor leaves (n − 1)/n of the machine, so a configuration degrades no worse than the CPU
// share lost when loaded/alone ≥ (n − 1)/n for all threads, and ≈ 1 for one thread on n ≥ 2.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Model } from '../../native/index.js';
import { decodeWav } from '../../app/shared/wav.js';

export interface UnderLoadRow {
  config: string;
  threads: number;
  adaptive: boolean;
  aloneMs: number;
  loadedMs: number;
  ratio: number;
  threadsUsedLoaded: number[];
}

function competitor(): ChildProcess {
  // A plain busy loop: it never sleeps, so it takes a core whenever the scheduler lets it.
  return spawn(process.execPath, ['-e', 'const end = Date.now() + 600000; let x = 0; while (Date.now() < end) x++;'], { stdio: 'ignore' });
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

export async function underLoad(file: string, audioPath: string, runs: number): Promise<UnderLoadRow[]> {
  const pcm = decodeWav(new Uint8Array(readFileSync(audioPath))).samples;
  const n = cpus().length;
  const configs = [
    { config: '1 thread', threads: 1, adaptive: false },
    { config: `${n} threads`, threads: n, adaptive: false },
    { config: `${n} threads, adaptive`, threads: n, adaptive: true },
  ];
  const rows: UnderLoadRow[] = [];
  for (const c of configs) {
    const model = await Model.load(file, { threads: c.threads, adaptiveThreads: c.adaptive });
    try {
      const timeRuns = async () => {
        const ms: number[] = [];
        const used: number[] = [];
        for (let i = 0; i < runs; i++) {
          const r = await model.transcribe(pcm);
          ms.push(r.timings.encoderMs);
          used.push(r.threadsUsed);
        }
        return { ms, used };
      };
      for (let i = 0; i < 3; i++) await model.transcribe(pcm);  // warm-up (and the adaptive calibration)
      const alone = await timeRuns();
      const busy = competitor();
      try {
        await sleep(300);
        for (let i = 0; i < 3; i++) await model.transcribe(pcm);  // let the adaptive arm see the load
        const loaded = await timeRuns();
        const aloneMs = median(alone.ms);
        const loadedMs = median(loaded.ms);
        rows.push({ ...c, aloneMs, loadedMs, ratio: aloneMs / loadedMs, threadsUsedLoaded: loaded.used });
      } finally {
        busy.kill('SIGKILL');
      }
      await sleep(300);
    } finally {
      model.dispose();
    }
  }
  return rows;
}

export function printUnderLoad(label: string, rows: UnderLoadRow[]): void {
  const n = cpus().length;
  console.log(`\nUnder load, ${label}: encoder ms (median) alone and with one competing busy process; speed kept = alone/loaded ` +
    `(the competitor takes 1 of ${n} cores: no worse than the share lost means ≥ ${((n - 1) / n).toFixed(2)})`);
  console.log(`  ${'configuration'.padEnd(24)} ${'alone'.padStart(7)} ${'loaded'.padStart(7)} ${'kept'.padStart(6)}  threads used when loaded`);
  for (const r of rows) {
    console.log(`  ${r.config.padEnd(24)} ${r.aloneMs.toFixed(0).padStart(7)} ${r.loadedMs.toFixed(0).padStart(7)} ${r.ratio.toFixed(2).padStart(6)}  ${r.threadsUsedLoaded.join(' ')}`);
  }
}
