// History playback's cost: two tracks of N minutes (default 60) mixed on
// meeting time by WavSource, read whole in the 256 KiB chunks a media
// response uses (throughput, times real time, RSS growth), then 50 random
// 256 KiB range reads (what a seek costs). Prints one JSON line; no
// assertions (benchmarks report, tests assert).
//   node --expose-gc --import tsx test/bench/playback-mix.ts [minutes]
// (with --expose-gc the RSS figures are taken after a collection, so they show
// what is kept, not chunks waiting for the collector)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { WavSource } from '../../app/main/media/wav-source.js';
import { wavHeader } from '../../app/main/meeting/wav-journal.js';

const minutes = Number(process.argv[2] ?? 60);
const dir = mkdtempSync(join(tmpdir(), 'parakeet-bench-playback-'));
try {
  const n = minutes * 60 * 16000;
  for (const name of ['you', 'others']) {
    const data = Buffer.alloc(n * 2);
    for (let i = 0; i < n; i += 1) data.writeInt16LE(((i * 7) % 2000) - 1000, 2 * i);
    writeFileSync(join(dir, `${name}.wav`), Buffer.concat([wavHeader(16000, data.length), data]));
  }
  const source = await WavSource.open([{ file: join(dir, 'you.wav'), offsetSec: 0 }, { file: join(dir, 'others.wav'), offsetSec: 1.5 }]);
  const chunk = 256 * 1024;
  const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  collect();
  const rssBefore = process.memoryUsage().rss;
  let t = performance.now();
  let bytes = 0;
  for (let at = 0; at < source.size; at += chunk) bytes += (await source.read(at, Math.min(source.size - 1, at + chunk - 1))).length;
  const wholeMs = performance.now() - t;
  collect();
  const rssAfter = process.memoryUsage().rss;
  const seeks: number[] = [];
  for (let k = 0; k < 50; k += 1) {
    const at = Math.floor(Math.random() * (source.size - chunk));
    t = performance.now();
    await source.read(at, at + chunk - 1);
    seeks.push(performance.now() - t);
  }
  await source.close();
  seeks.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({
    minutes, mixBytes: bytes, wholeMixMs: Math.round(wholeMs), mbPerSec: Number((bytes / 1e6 / (wholeMs / 1000)).toFixed(1)),
    timesRealTime: Math.round((minutes * 60) / (wholeMs / 1000)), rssGrowthMB: Number(((rssAfter - rssBefore) / 1e6).toFixed(1)),
    seekMsP50: Number(seeks[25]!.toFixed(2)), seekMsMax: Number(seeks[49]!.toFixed(2)),
  })}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
