// `parakeet` command-line tool: devices, model info, transcription, quantization.
//
//   parakeet devices [--json]
//   parakeet info <model.gguf> [--device NAME] [--weight-type T] [--json]
//   parakeet transcribe <audio.wav> --model <m.gguf> [--device NAME] [--threads N]
//            [--decoder tdt|rnnt|ctc] [--tdt-rule greedy_batch|greedy] [--weight-type T]
//            [--format txt|srt|vtt|json] [--json] [--out FILE] [--dump-dir DIR] [--max-window-sec S]
//            [--vocabulary FILE]
//   parakeet eval <folder> --model <m.gguf> [--device NAME] [--threads N] [--decoder D] [--weight-type T]
//            [--max-window-sec S] [--vocabulary FILE] [--json] [--out FILE]
//   parakeet quantize <in.gguf> <out.gguf> <f16|bf16|q8_0|q5_0|q4_0|q6_k|q5_k|q4_k>
//   parakeet version
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildInfo, isEngineError, listDevices, Model, quantizeModel, type DecoderName, type DeviceInfo, type ModelInfo,
  type TranscribeResult, type WeightType,
} from '../../native/index.js';
import { WEIGHT_TYPES } from '../ipc/settings.js';
import { encodeNpyFloat32 } from '../shared/npy.js';
import { EXPORT_FORMATS, exportTranscript, type ExportFormat } from '../shared/subtitles.js';
import { parseVocabularyFile, VocabularyFileError, vocabularyOptions, type VocabularyPhrase } from '../shared/vocabulary.js';
import { readWavMono, type MonoWav } from '../main/engine/wav-file.js';
import { convertToWav, findConverter, isWavFile, noConverterError } from '../main/files/audio-converter.js';
import { evaluateFolder, formatEvalReport } from './eval.js';
import { writeFileAtomic } from '../main/util/atomic-file.js';

class UsageError extends Error {}

const HELP = `parakeet — local speech recognition (NVIDIA Parakeet on ggml)

Commands:
  devices [--json]                       list compute devices (CPU features, GPU memory)
  info <model.gguf> [--json]             validate a model and show its architecture
  transcribe <audio> --model <m>         transcribe a WAV file (other formats — flac, mp3, m4a, ogg, … —
                                         through the machine's ffmpeg or sox, as the app does)
      --device NAME       cpu, CUDA0, Vulkan0, … (default: $PARAKEET_DEVICE, else first GPU, else CPU)
      --threads N         CPU threads (default: all)
      --decoder D         tdt | rnnt | ctc (default: the model's)
      --tdt-rule R        greedy_batch (NeMo default) | greedy
      --weight-type T     auto | f32 | f16 | bf16 | q8_0 | q4_0 | q4_k | int8 | i16 (load-time layout; see README)
      --format F          txt | srt | vtt | json (default txt)
      --json              same as --format json, with timings and devices
      --out FILE          write the result to FILE instead of stdout
      --dump-dir DIR      write mel.npy and encoder.npy of the first window (parity debugging)
      --max-window-sec S  long audio is cut at pauses into windows of at most S seconds (default 60)
      --vocabulary FILE   phrases to favour: one per line, optionally a TAB and a positive weight (default 1);
                          the JSON lists phrasesFired and phrasesRejected (e.g. characters the model lacks)
  eval <folder> --model <m>              transcribe every *.wav that has a *.txt reference beside it and print
                                         WER and CER per file and in total (text lowercased, punctuation removed)
      --device, --threads, --decoder, --weight-type, --max-window-sec, --vocabulary   as for transcribe
      --json              the report as JSON (per file: reference, hypothesis, S/D/I counts, WER, CER)
      --out FILE          write the report to FILE instead of stdout
  quantize <in> <out> <type>             re-quantize matmul weights (f16 bf16 q8_0 q5_0 q4_0 q6_k q5_k q4_k)
  version                                engine and ggml version

Exit status: 0 success, 1 failure (the message names the error code), 2 usage error.`;

function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024).toFixed(0)} KiB`;
}

function describeDevice(d: DeviceInfo): string {
  const lines = [`${d.name}  (${d.type}, backend ${d.backend})  ${d.description}`];
  if (d.memoryTotal > 0) lines.push(`    memory: ${formatBytes(d.memoryFree)} free of ${formatBytes(d.memoryTotal)}`);
  if (d.type === 'cpu') {
    lines.push(`    threads: ${d.cpuThreads}`);
    if (d.cpuFeatures.length) lines.push(`    features: ${d.cpuFeatures.join(' ')}`);
  }
  return lines.join('\n');
}

function describeModel(m: ModelInfo): string {
  const types = Object.entries(m.tensorTypes).map(([t, n]) => `${t}×${n}`).join(' ');
  const placed = Object.entries(m.weightTypes).map(([t, n]) => `${t}×${n}`).join(' ');
  return [
    `model:        ${m.path}`,
    `name:         ${m.name || '(none)'}`,
    `architecture: ${m.arch}  (decoders: ${m.decoders.join(', ')}; default ${m.defaultDecoder})`,
    `encoder:      d_model ${m.dModel}, ${m.nLayers} layers, ${m.nHeads} heads, ff ${m.ffDim}, conv kernel ${m.convKernel}, ` +
      `subsampling ×${m.subsamplingFactor} (${m.subsamplingChannels} ch)${m.xscaling ? ', xscaling' : ''}${m.useBias ? '' : ', no biases'}`,
    `features:     ${m.nMels} mels, n_fft ${m.nFft}, hop ${m.hopLength}, ${m.sampleRate} Hz, normalize ${m.normalize}`,
    `vocabulary:   ${m.vocabSize} pieces (blank ${m.blankId})`,
    ...(m.hasTransducer
      ? [`transducer:   pred ${m.predHidden}×${m.predLayers} LSTM, joint ${m.jointHidden}, max symbols ${m.maxSymbols}` +
          (m.isTdt ? `, durations [${m.durations.join(', ')}]` : '')]
      : []),
    `file:         ${formatBytes(m.fileBytes)}, ${m.tensorCount} tensors (${types})`,
    `weights:      ${formatBytes(m.weightBytes)} on ${m.device.device.name} as ${placed}${m.mmap ? ' (mapped from the file)' : ''}`,
    `kernels:      ${Object.keys(m.kernels).length ? Object.entries(m.kernels).map(([k, n]) => `${k}×${n}`).join(' ') : "ggml's only"}`,
    `device:       ${m.device.device.name} — ${m.device.reason}`,
    `threads:      ${m.threads}; loaded in ${m.loadMs.toFixed(0)} ms`,
  ].join('\n');
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${flag} must be one of: ${allowed.join(', ')}`);
  return value as T;
}

function positiveNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number`);
  return n;
}

async function emit(text: string, out: string | undefined): Promise<void> {
  if (out) await writeFileAtomic(out, text);
  else process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/**
 * Mono at `sampleRate` (the model's): a WAV resampled as it is read; anything else converted to a
 * temporary 16 kHz WAV by ffmpeg or sox (the app's converter), then read the same way.
 */
async function readAudio(file: string, sampleRate: number): Promise<MonoWav> {
  if (await isWavFile(file)) return readWavMono(file, { sampleRate });
  const converter = await findConverter();
  if (!converter) throw noConverterError(file);
  const dir = await mkdtemp(join(tmpdir(), 'parakeet-cli-'));
  try {
    const wav = join(dir, `${basename(file)}.wav`);
    await convertToWav(converter, file, wav);
    return await readWavMono(wav, { sampleRate });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** --vocabulary FILE: the phrase list (a bad file is a usage error naming the line). */
async function readVocabulary(file: string | undefined): Promise<VocabularyPhrase[]> {
  if (file === undefined) return [];
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--vocabulary ${file}: cannot read it (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    return parseVocabularyFile(text);
  } catch (error) {
    if (error instanceof VocabularyFileError) throw new UsageError(`--vocabulary ${file}: ${error.message}`);
    throw error;
  }
}

async function evalCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: 'string', short: 'm' }, device: { type: 'string' }, threads: { type: 'string' },
      decoder: { type: 'string' }, 'weight-type': { type: 'string' }, 'max-window-sec': { type: 'string' },
      vocabulary: { type: 'string' }, json: { type: 'boolean' }, out: { type: 'string', short: 'o' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('eval needs exactly one folder');
  if (!values.model) throw new UsageError('eval needs --model <model.gguf>');
  const report = await evaluateFolder(positionals[0], {
    model: values.model,
    device: values.device,
    threads: positiveNumber('threads', values.threads),
    decoder: oneOf<DecoderName>('decoder', values.decoder, ['tdt', 'rnnt', 'ctc']),
    weightType: oneOf<WeightType>('weight-type', values['weight-type'], WEIGHT_TYPES),
    maxWindowSec: positiveNumber('max-window-sec', values['max-window-sec']),
    vocabulary: await readVocabulary(values.vocabulary),
    onFile: (_f, i, n) => {
      if (process.stderr.isTTY) process.stderr.write(`\r${i + 1}/${n}`);
    },
  });
  if (process.stderr.isTTY) process.stderr.write('\r');
  await emit(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatEvalReport(report), values.out);
}

async function transcribeCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: 'string', short: 'm' }, device: { type: 'string' }, threads: { type: 'string' },
      decoder: { type: 'string' }, 'tdt-rule': { type: 'string' }, 'weight-type': { type: 'string' },
      format: { type: 'string' }, json: { type: 'boolean' }, out: { type: 'string', short: 'o' },
      'dump-dir': { type: 'string' }, 'max-window-sec': { type: 'string' }, vocabulary: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('transcribe needs exactly one audio file');
  if (!values.model) throw new UsageError('transcribe needs --model <model.gguf>');
  const format: ExportFormat = values.json ? 'json' : (oneOf('format', values.format, EXPORT_FORMATS) ?? 'txt');
  const decoder = oneOf<DecoderName>('decoder', values.decoder, ['tdt', 'rnnt', 'ctc']);
  const tdtRule = oneOf('tdt-rule', values['tdt-rule'], ['greedy_batch', 'greedy'] as const);
  const weightType = oneOf<WeightType>('weight-type', values['weight-type'], WEIGHT_TYPES);
  const threads = positiveNumber('threads', values.threads);
  const maxWindowSec = positiveNumber('max-window-sec', values['max-window-sec']);
  const vocabulary = await readVocabulary(values.vocabulary);

  const model = await Model.load(values.model, { device: values.device, threads, weightType });
  try {
    // The app's streaming reader: a WAV of any size (one readFile stops at 2 GiB), mono, resampled while read.
    const audio = await readAudio(positionals[0], model.info().sampleRate);
    if (audio.truncated) process.stderr.write(`warning: ${positionals[0]} is cut short; transcribing what is present (${(audio.samples.length / audio.sampleRate).toFixed(2)} s)\n`);
    const dump = values['dump-dir'];
    const result: TranscribeResult = await model.transcribe(audio.samples, {
      sampleRate: audio.sampleRate, decoder, tdtRule, maxWindowSec,
      captureMel: Boolean(dump), captureEncoder: Boolean(dump), ...vocabularyOptions(vocabulary),
    });
    for (const r of result.phrasesRejected) process.stderr.write(`warning: vocabulary phrase "${r.phrase}" is not used: ${r.reason}\n`);
    if (dump) {
      if (result.mel) {
        await writeFileAtomic(join(dump, 'mel.npy'), encodeNpyFloat32(result.mel.data, [result.mel.bins, result.mel.frames]));
      }
      if (result.encoder) {
        await writeFileAtomic(join(dump, 'encoder.npy'), encodeNpyFloat32(result.encoder.data, [result.encoder.frames, result.encoder.dim]));
      }
      process.stderr.write(`wrote mel.npy and encoder.npy to ${dump}\n`);
    }
    if (values.json) {
      const { mel: _mel, encoder: _encoder, logProbs: _logProbs, ...plain } = result;
      await emit(`${JSON.stringify({ ...plain, model: model.info().path }, null, 2)}\n`, values.out);
    } else {
      await emit(exportTranscript(format, result.text, result.words, result.durationSec), values.out);
    }
    const rtf = result.durationSec / (result.timings.totalMs / 1000);
    process.stderr.write(
      `${result.durationSec.toFixed(1)} s of audio in ${(result.timings.totalMs / 1000).toFixed(2)} s (${rtf.toFixed(1)}× real time) on ` +
        `${result.devicesRan.join('+') || result.device}, decoder ${result.decoder}\n`,
    );
  } finally {
    model.dispose();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'devices': {
      const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } } });
      const devices = listDevices();
      await emit(values.json ? JSON.stringify(devices, null, 2) : devices.map(describeDevice).join('\n'), undefined);
      return 0;
    }
    case 'info': {
      const { values, positionals } = parseArgs({
        args: rest, allowPositionals: true,
        options: { json: { type: 'boolean' }, device: { type: 'string' }, 'weight-type': { type: 'string' }, threads: { type: 'string' } },
      });
      if (positionals.length !== 1) throw new UsageError('info needs exactly one model file');
      const weightType = oneOf<WeightType>('weight-type', values['weight-type'], WEIGHT_TYPES);
      const model = await Model.load(positionals[0], { device: values.device, weightType, threads: positiveNumber('threads', values.threads) });
      const info = model.info();
      model.dispose();
      await emit(values.json ? JSON.stringify(info, null, 2) : describeModel(info), undefined);
      return 0;
    }
    case 'transcribe':
      await transcribeCommand(rest);
      return 0;
    case 'eval':
      await evalCommand(rest);
      return 0;
    case 'quantize': {
      if (rest.length !== 3) throw new UsageError('quantize needs <in.gguf> <out.gguf> <type>');
      await quantizeModel(rest[0], rest[1], rest[2]);
      // Say how much of the file took the type: a row length that is not a multiple of the type's block
      // (32 for q8_0/q5_0/q4_0, 256 for the K-quants) keeps that tensor's type, silently otherwise.
      const written = await Model.load(rest[1], { threads: 1 });
      const types = written.info().tensorTypes;
      written.dispose();
      const wanted = Object.entries(types).find(([t]) => t.toLowerCase() === rest[2].toLowerCase())?.[1] ?? 0;
      const summary = Object.entries(types).map(([t, n]) => `${t}×${n}`).join(' ');
      process.stderr.write(`wrote ${rest[1]} (tensors: ${summary})\n`);
      if (wanted === 0) {
        process.stderr.write(`warning: no tensor could be stored as ${rest[2]}: the matmul rows of this model do not fit its blocks; the file keeps the input's types\n`);
      }
      return 0;
    }
    case 'version': {
      const b = buildInfo();
      await emit(`parakeet-desktop engine; ggml ${b.ggmlVersion} (${b.ggmlCommit.slice(0, 12)}, ${b.ggmlSource}); backends: ${b.backends.join(', ')}`, undefined);
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${HELP}\n`);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const parseError = error instanceof Error && String((error as { code?: unknown }).code ?? '').startsWith('ERR_PARSE_ARGS');
    if (error instanceof UsageError || parseError) {
      process.stderr.write(`parakeet: ${error.message}\nRun "parakeet help" for usage.\n`);
      process.exitCode = 2;
      return;
    }
    const code = isEngineError(error) || (error as { code?: string })?.code === 'BAD_AUDIO' ? (error as { code: string }).code : 'ERROR';
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`parakeet: error [${code}]: ${message}\n`);
    process.exitCode = 1;
  },
);
