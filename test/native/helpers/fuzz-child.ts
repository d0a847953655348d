// Corruption fuzz, run in a child process by corruption-fuzz.test.ts so that a
// native crash kills only this process. For each seeded truncated/byte-flipped
// copy of a valid tiny model: load it; if it loads, transcribe 0.3 s with each
// decoder it offers. Every outcome must be success or an engine error.
//
//   node --import tsx fuzz-child.ts <dir> <progress-file> <count-per-base> [dialects]
//
// With `dialects` the bases are the other schemas the engine reads: an NVIDIA NeMo-Speech.cpp file
// and a parakeet.cpp bundle (its ASR component's digest makes most data flips a refusal).
//
// Before each step the case is written to <progress-file> (synchronously), so
// the parent can name the case that crashed. The last stdout line is a JSON summary.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isEngineError, Model } from '../../../native/index.js';
import { readGguf } from '../../support/gguf/reader.js';
import { writeBundle } from '../../support/model/bundle.js';
import { generateModel } from '../../support/model/generate.js';
import { writeNvidiaSchema } from '../../support/model/nvidia-schema.js';
import { writeCorruptedCopies } from '../../support/model/malformed.js';
import type { ModelOptionsInput } from '../../support/model/options.js';

const [dir, progressFile, countText, variant] = process.argv.slice(2);
const perBase = Number(countText);
if (!dir || !progressFile || !(perBase > 0)) {
  process.stderr.write('usage: fuzz-child.ts <dir> <progress-file> <count-per-base>\n');
  process.exit(2);
}

interface Summary {
  cases: number;
  loaded: number;
  rejected: Record<string, number>;
  transcribed: number;
  transcribeRejected: Record<string, number>;
  /** Outcomes that were neither success nor an engine error with a code. */
  unexpected: string[];
  kinds: Record<string, number>;
  /** A few rejection messages per code, for the report. */
  samples: Record<string, string>;
}

const summary: Summary = { cases: 0, loaded: 0, rejected: {}, transcribed: 0, transcribeRejected: {}, unexpected: [], kinds: {}, samples: {} };
/** A base file at `path`; returns the offset of its tensor data (flips before it damage metadata). */
type MakeBase = (path: string) => number;
const plain = (options: ModelOptionsInput): MakeBase => (path) => generateModel(path, options).layout.dataOffset;
const PLAIN_BASES: { label: string; make: MakeBase; seed: number }[] = [
  { label: 'hybrid_tdt_ctc-f32', make: plain({ preset: 'tiny', arch: 'hybrid_tdt_ctc', weightType: 'f32', seed: 41 }), seed: 1001 },
  { label: 'tdt-q8_0', make: plain({ preset: 'tiny', arch: 'tdt', weightType: 'q8_0', seed: 42 }), seed: 2002 },
  { label: 'ctc-q4_0', make: plain({ preset: 'tiny', arch: 'ctc', weightType: 'q4_0', seed: 43 }), seed: 3003 },
];
const DIALECT_BASES: { label: string; make: MakeBase; seed: number }[] = [
  {
    label: 'nvidia-hybrid_rnnt_ctc-q8_0',
    make: (path) => {
      generateModel(`${path}.src`, { preset: 'tiny', arch: 'hybrid_rnnt_ctc', seed: 44 });
      writeNvidiaSchema(`${path}.src`, path, { weightType: 'q8_0', sentencePiece: new Uint8Array(64).fill(7) });
      return readGguf(path).dataOffset;
    },
    seed: 4004,
  },
  {
    label: 'bundle-tdt',
    make: (path) => {
      generateModel(`${path}.src`, { preset: 'tiny', arch: 'tdt', seed: 45 });
      writeBundle(path, 'fuzz', [{ name: 'asr', kind: 'asr', file: `${path}.src` }]);
      return readGguf(path).dataOffset;
    },
    seed: 5005,
  },
];
const bases = variant === 'dialects' ? DIALECT_BASES : PLAIN_BASES;
const pcm = new Float32Array(4800).map((_, i) => 0.3 * Math.sin(i / 7) + 0.05 * Math.sin(i / 3.1));
const BATCH = 40;

function mark(text: string): void {
  writeFileSync(progressFile, text);
}

for (const base of bases) {
  const basePath = join(dir, `${base.label}.gguf`);
  const dataOffset = base.make(basePath);
  const source = new Uint8Array(readFileSync(basePath));
  for (let done = 0; done < perBase; done += BATCH) {
    const count = Math.min(BATCH, perBase - done);
    const copies = writeCorruptedCopies(source, (i) => join(dir, `${base.label}-${done + i}.gguf`), {
      seed: base.seed + done, count, dataOffset,
    });
    for (const copy of copies) {
      const label = `${base.label} #${summary.cases}: ${copy.detail}`;
      summary.cases++;
      summary.kinds[copy.kind] = (summary.kinds[copy.kind] ?? 0) + 1;
      mark(`load ${label}`);
      let model: Model | null = null;
      try {
        model = await Model.load(copy.path, { threads: 1 });
        summary.loaded++;
      } catch (error) {
        if (isEngineError(error)) {
          summary.rejected[error.code] = (summary.rejected[error.code] ?? 0) + 1;
          summary.samples[error.code] ??= error.message;
        } else summary.unexpected.push(`load ${label}: ${String(error)}`);
      }
      if (model) {
        for (const decoder of model.info().decoders) {
          mark(`transcribe (${decoder}) ${label}`);
          try {
            await model.transcribe(pcm, { decoder });
            summary.transcribed++;
          } catch (error) {
            if (isEngineError(error)) summary.transcribeRejected[error.code] = (summary.transcribeRejected[error.code] ?? 0) + 1;
            else summary.unexpected.push(`transcribe ${label}: ${String(error)}`);
          }
        }
        model.dispose();
      }
      rmSync(copy.path, { force: true });
    }
  }
}
mark('done');
process.stdout.write(`${JSON.stringify(summary)}\n`);
