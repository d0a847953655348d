// `parakeet eval <folder>`: transcribes every *.wav that has a *.txt reference
// beside it, with one loaded model, and scores each against its reference
// (app/shared/wer.ts: normalisation, WER, CER). The report is per file and
// pooled over the folder; `formatEvalReport` prints it as a table.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Model, type DecoderName, type WeightType } from '../../native/index.js';
import { readWavMono } from '../engine-process/wav-file.js';
import { vocabularyOptions, type VocabularyPhrase } from '../shared/vocabulary.js';
import { errorRates, rate, sumCounts, type EditCounts, type ErrorRates } from '../shared/wer.js';

export interface EvalOptions {
  model: string;
  device?: string;
  threads?: number;
  decoder?: DecoderName;
  weightType?: WeightType;
  maxWindowSec?: number;
  /** Phrases to favour (custom vocabulary); empty: decoding as without. */
  vocabulary?: readonly VocabularyPhrase[];
  /** Called after each file (progress on stderr). */
  onFile?: (file: EvalFile, index: number, total: number) => void;
}

export interface EvalFile extends ErrorRates {
  file: string;
  /** Vocabulary phrases found in the hypothesis. */
  phrasesFired: string[];
  durationSec: number;
  decodeMs: number;
}

export interface EvalReport {
  folder: string;
  model: string;
  modelName: string;
  decoder: string;
  device: string;
  weightType: string;
  /** Placed ggml types of the matmul weights (ModelInfo.weightTypes). */
  weightTypes: Record<string, number>;
  files: EvalFile[];
  total: {
    files: number;
    word: EditCounts;
    char: EditCounts;
    wer: number;
    cer: number;
    audioSec: number;
    decodeMs: number;
  };
}

/** The *.wav files of `folder` that have a *.txt reference, sorted by name. */
export async function referencePairs(folder: string): Promise<{ wav: string; txt: string; name: string }[]> {
  const names = new Set(await readdir(folder));
  return [...names]
    .filter((n) => n.toLowerCase().endsWith('.wav') && names.has(`${n.slice(0, -4)}.txt`))
    .sort()
    .map((name) => ({ name, wav: join(folder, name), txt: join(folder, `${name.slice(0, -4)}.txt`) }));
}

export async function evaluateFolder(folder: string, options: EvalOptions): Promise<EvalReport> {
  const pairs = await referencePairs(folder);
  if (pairs.length === 0) throw new Error(`${folder} has no *.wav file with a *.txt reference beside it`);
  const model = await Model.load(options.model, { device: options.device, threads: options.threads, weightType: options.weightType });
  try {
    const info = model.info();
    const files: EvalFile[] = [];
    let decoder = '';
    let device = '';
    for (const [index, pair] of pairs.entries()) {
      const reference = await readFile(pair.txt, 'utf8');
      const audio = await readWavMono(pair.wav, { sampleRate: info.sampleRate });
      const result = await model.transcribe(audio.samples, {
        sampleRate: audio.sampleRate, decoder: options.decoder, maxWindowSec: options.maxWindowSec,
        ...vocabularyOptions(options.vocabulary ?? []),
      });
      decoder = result.decoder;
      device = result.devicesRan.join('+') || result.device;
      const r = errorRates(reference, result.text);
      const file: EvalFile = {
        file: pair.name, phrasesFired: result.phrasesFired, reference: r.reference, hypothesis: r.hypothesis, word: r.word, char: r.char, wer: r.wer, cer: r.cer,
        durationSec: result.durationSec, decodeMs: result.timings.totalMs,
      };
      files.push(file);
      options.onFile?.(file, index, pairs.length);
    }
    const word = sumCounts(files.map((f) => f.word));
    const char = sumCounts(files.map((f) => f.char));
    return {
      folder, model: info.path, modelName: info.name, decoder, device, weightType: options.weightType ?? 'auto',
      weightTypes: info.weightTypes, files,
      total: {
        files: files.length, word, char, wer: rate(word), cer: rate(char),
        audioSec: files.reduce((s, f) => s + f.durationSec, 0), decodeMs: files.reduce((s, f) => s + f.decodeMs, 0),
      },
    };
  } finally {
    model.dispose();
  }
}

const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;

/** The report as text: one line per file (WER, CER, errors S/D/I, and what was heard when it differs), then the total. */
export function formatEvalReport(report: EvalReport): string {
  const width = Math.max(4, ...report.files.map((f) => f.file.length));
  const lines = [`${'file'.padEnd(width)}  ${'WER'.padStart(7)}  ${'CER'.padStart(7)}  words  S/D/I`];
  for (const f of report.files) {
    const sdi = `${f.word.substitutions}/${f.word.deletions}/${f.word.insertions}`;
    let line = `${f.file.padEnd(width)}  ${pct(f.wer).padStart(7)}  ${pct(f.cer).padStart(7)}  ${String(f.word.n).padStart(5)}  ${sdi}`;
    if (f.word.errors > 0 || f.char.errors > 0) line += `\n${''.padEnd(width)}    ref: ${f.reference}\n${''.padEnd(width)}    hyp: ${f.hypothesis}`;
    lines.push(line);
  }
  const t = report.total;
  lines.push(
    `total: ${t.files} files, ${t.word.n} words, ${t.char.n} characters, ${t.audioSec.toFixed(1)} s of audio`,
    `WER ${pct(t.wer)} (${t.word.substitutions} substitutions, ${t.word.deletions} deletions, ${t.word.insertions} insertions)`,
    `CER ${pct(t.cer)} (${t.char.errors} character edits)`,
    `model ${report.modelName || report.model}, decoder ${report.decoder}, ${report.device}, weight type ${report.weightType}; ` +
      `decoded in ${(t.decodeMs / 1000).toFixed(2)} s (${(t.audioSec / (t.decodeMs / 1000)).toFixed(0)}× real time)`,
  );
  return lines.join('\n');
}
