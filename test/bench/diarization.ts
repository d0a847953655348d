// Diarization benchmark.
//
// Quality (needs real files): every WAV of a folder with an RTTM beside it (same name) is diarized
// with streaming Sortformer and scored: DER (no collar, optimal speaker mapping). With --asr and a
// `<name>.spk.txt` beside it (lines `speaker<TAB>words`), the words of the ASR model get speakers
// (most active speaker over each word) and cpWER is printed too.
//
//   npm run bench:diarization -- --model sortformer.gguf --rttm DIR [--asr model.gguf] [--threads N]
//
// Speed and memory (a generated model of diar_streaming_sortformer_4spk-v2's shapes; random weights):
// RTFx of streaming diarization at 1 and 2 threads, the compute time of one streaming chunk, and the
// process RSS over a long live stream fed in 100 ms blocks.
//
//   npm run bench:diarization -- --speed [--seconds 60] [--stream-minutes 60] [--json-out FILE] [--tiny]
//   (--tiny: the test suite's tiny generated model instead, to smoke-run the script on a busy machine)
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Model } from '../../native/index.js';
import { Diarizer } from '../../native/diarizer.js';
import { readWavMono } from '../../app/engine-process/wav-file.js';
import { attributeWords, defaultSpeakerName, parseRttm, segmentParamsOf, speakerSegments } from '../../app/shared/diarization.js';
import { cpWer, diarizationErrorRate } from '../../app/shared/diarization-metrics.js';
import { meetingLike, meetingMinute } from '../support/audio/signals.js';
import { generateSortformer, SHAPE_SORTFORMER_4SPK_V2, TINY_SORTFORMER } from '../support/model/sortformer.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' }, rttm: { type: 'string' }, asr: { type: 'string' }, threads: { type: 'string' },
    speed: { type: 'boolean', default: false }, seconds: { type: 'string', default: '60' },
    'stream-minutes': { type: 'string', default: '60' }, 'json-out': { type: 'string' }, tiny: { type: 'boolean', default: false },
  },
});

async function quality(modelPath: string, folder: string): Promise<void> {
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  const diarizer = await Diarizer.load(modelPath, { threads });
  const asr = values.asr === undefined ? undefined : await Model.load(values.asr, { threads });
  let refTime = 0, errTime = 0, cpErrors = 0, cpWords = 0;
  try {
    for (const wav of readdirSync(folder).filter((f) => f.endsWith('.wav')).sort()) {
      const name = basename(wav, '.wav');
      const rttmPath = join(folder, `${name}.rttm`);
      if (!existsSync(rttmPath)) continue;
      const audio = await readWavMono(join(folder, wav), { sampleRate: diarizer.info().sampleRate });
      const activities = await diarizer.diarize(audio.samples, { streaming: true });
      const hypothesis = speakerSegments(activities, segmentParamsOf(diarizer.info())).map((s) => ({ ...s, speaker: defaultSpeakerName(s.speaker) }));
      const der = diarizationErrorRate(parseRttm(readFileSync(rttmPath, 'utf8')), hypothesis);
      refTime += der.reference;
      errTime += der.missed + der.falseAlarm + der.confusion;
      let line = `${name}: DER ${(der.der * 100).toFixed(2)} % (missed ${der.missed.toFixed(1)} s, false alarm ${der.falseAlarm.toFixed(1)} s, confusion ${der.confusion.toFixed(1)} s)`;
      const spkPath = join(folder, `${name}.spk.txt`);
      if (asr !== undefined && existsSync(spkPath)) {
        const result = await asr.transcribe(audio.samples, { sampleRate: audio.sampleRate });
        const byHyp = new Map<string, string>();
        for (const w of attributeWords(result.words, activities)) {
          const key = defaultSpeakerName(w.speaker);
          byHyp.set(key, `${byHyp.get(key) ?? ''} ${w.text}`);
        }
        const byRef = new Map<string, string>();
        for (const l of readFileSync(spkPath, 'utf8').split(/\r?\n/).filter((x) => x.includes('\t'))) {
          const [speaker, text] = l.split('\t');
          byRef.set(speaker, `${byRef.get(speaker) ?? ''} ${text}`);
        }
        const cp = cpWer(byRef, byHyp);
        cpErrors += cp.errors;
        cpWords += cp.words;
        line += `, cpWER ${(cp.cpwer * 100).toFixed(2)} %`;
      }
      console.log(line);
    }
  } finally {
    diarizer.dispose();
    asr?.dispose();
  }
  console.log(`total: DER ${refTime > 0 ? ((errTime / refTime) * 100).toFixed(2) : '-'} % over ${refTime.toFixed(1)} s of reference speech` +
    (cpWords > 0 ? `, cpWER ${((cpErrors / cpWords) * 100).toFixed(2)} % over ${cpWords} words` : ''));
}

async function speed(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-diarization-'));
  const seconds = Number(values.seconds);
  const streamMinutes = Number(values['stream-minutes']);
  const shape = values.tiny ? TINY_SORTFORMER : SHAPE_SORTFORMER_4SPK_V2;
  const report: Record<string, unknown> = { model: `generated ${shape.label} (random weights)`, seconds };
  try {
    const path = join(dir, 'sortformer-4spk-v2-shape.gguf');
    generateSortformer(path, shape);
    const pcm = meetingLike(seconds);
    for (const threads of [1, 2]) {
      const d = await Diarizer.load(path, { threads });
      const t0 = performance.now();
      const a = await d.diarize(pcm, { streaming: true });
      const wall = (performance.now() - t0) / 1000;
      report[`rtfx_${threads}_threads`] = seconds / wall;
      console.log(`${threads} thread(s): ${seconds} s in ${wall.toFixed(2)} s, RTFx ${(seconds / wall).toFixed(1)} (${a.frames} frames)`);
      // One streaming chunk's compute: pushes that completed a chunk, timed alone.
      const stream = d.createStream();
      const block = Math.round(0.1 * d.info().sampleRate);
      const chunkMs: number[] = [];
      for (let at = 0; at < pcm.length; at += block) {
        const s = performance.now();
        const got = await stream.push(pcm.subarray(at, at + block));
        if (got.frames > 0) chunkMs.push(performance.now() - s);
      }
      await stream.finish();
      stream.dispose();
      chunkMs.sort((x, y) => x - y);
      const median = chunkMs[Math.floor(chunkMs.length / 2)] ?? NaN;
      report[`chunk_ms_median_${threads}_threads`] = median;
      console.log(`${threads} thread(s): one chunk (${d.info().chunkLen} frames = ${(d.info().chunkLen * d.info().frameSec).toFixed(2)} s) in ${median.toFixed(0)} ms (median of ${chunkMs.length})`);
      d.dispose();
    }
    // RSS over a long live stream, one minute of audio at a time (never the whole meeting in memory).
    const d = await Diarizer.load(path, { threads: 2 });
    const stream = d.createStream();
    // Each sample after a full garbage collection (the script runs with --expose-gc): otherwise the RSS
    // also counts the pushes' uncollected JS results (promises, Float32Arrays), which grew it by about
    // 3.5 MB a minute on their own until V8's next major collection.
    const collect = (globalThis as { gc?: () => void }).gc;
    const rss: { minute: number; rssMb: number; jsHeapMb: number }[] = [];
    let frames = 0;
    for (let minute = 0; minute < streamMinutes; minute++) {
      const pcmMinute = meetingMinute(0, minute);
      for (let at = 0; at < pcmMinute.length; at += 1600) frames += (await stream.push(pcmMinute.subarray(at, at + 1600))).frames;
      collect?.();
      const usage = process.memoryUsage();
      rss.push({ minute: minute + 1, rssMb: usage.rss / 1e6, jsHeapMb: usage.heapUsed / 1e6 });
      process.stderr.write(`minute ${minute + 1}/${streamMinutes}: rss ${(usage.rss / 1e6).toFixed(0)} MB (JS heap ${(usage.heapUsed / 1e6).toFixed(0)} MB)\n`);
    }
    frames += (await stream.finish()).frames;
    stream.dispose();
    d.dispose();
    report.stream = { minutes: streamMinutes, frames, rss, collectedBeforeEachSample: collect !== undefined };
    console.log(`live stream: ${streamMinutes} min, ${frames} frames; RSS ${rss.map((r) => r.rssMb.toFixed(0)).join(' → ')} MB`);
    if (values['json-out']) writeFileSync(values['json-out'], `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (values.speed) await speed();
else if (values.model !== undefined && values.rttm !== undefined) await quality(values.model, values.rttm);
else {
  process.stderr.write('usage: npm run bench:diarization -- --model FILE --rttm DIR [--asr MODEL] | --speed [--seconds S] [--stream-minutes M]\n');
  process.exitCode = 2;
}
