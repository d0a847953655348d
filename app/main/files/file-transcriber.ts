// File transcription jobs ("f<n>"): the engine process reads and decodes the
// WAV itself (hours of audio never cross the IPC boundary or block main);
// other formats are first converted to a temporary WAV by ffmpeg or sox when
// the machine has one (audio-converter.ts), and the temporary file removed,
// progress is forwarded (throttled), and a job can be cancelled through the
// engine's abort flag.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileTranscribeOptions, FileTranscript, Word } from '../../ipc/contract.js';
import { MeetingSpeakers } from '../meeting/meeting-speakers.js';
import { MonoBlockReader } from '../../engine-process/wav-file.js';
import { vocabularyOptions } from '../../shared/vocabulary.js';
import type { EngineHost } from '../engine/engine-host.js';
import { type EngineVadOptions } from '../../engine-process/protocol.js';
import { CodedError } from '../../../types/errors.js';
import type { EventBus } from '../events.js';
import type { Logger } from '../log.js';
import type { SettingsStore } from '../settings.js';
import { checkRegularFile, notRegularMessage } from '../util/regular-file.js';
import { convertToWav, findConverter, isWavFile, noConverterError } from './audio-converter.js';
import { keepConfidentTranscript } from '../../shared/silence-guards.js';
import { fileVadOptions } from './file-vad-options.js';

/**
 * File-system failures arrive from the engine process as Node's terse errno text ("ENOENT: no such file or
 * directory, open …"); the UI shows this message to the user, so say what is wrong with their path instead.
 */
function describeFileError(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new CodedError('NOT_FOUND', `There is no file at ${path}.`);
    case 'EISDIR':
      return new CodedError('BAD_ARGUMENT', `${path} is a folder, not an audio file.`);
    case 'EACCES':
    case 'EPERM':
      return new CodedError('IO_ERROR', `${path} cannot be read (permission denied).`);
    default:
      return error;
  }
}

export class FileTranscriber {
  private readonly jobs = new Map<string, AbortController>();
  private nextId = 1;

  constructor(private readonly opts: {
    engine: EngineHost;
    bus: EventBus;
    settings: SettingsStore;
    log: Logger;
    /**
     * Each finished transcript (the history saves it). Awaited before the reply, so the entry exists when
     * the renderer gets the result; it must not throw (a failure to save is its own notice).
     */
    onTranscribed?: (transcript: FileTranscript) => Promise<void>;
    /** Where ffmpeg/sox are looked for (default: $PATH); tests narrow it. */
    converterSearchPath?: string;
  }) {}

  /**
   * Silero's segments when the settings want the trained VAD and the engine runs it: the file is cut at
   * pauses and its silent stretches skipped, each segment keeping what a live one keeps after its speech
   * (SPEECH_TAIL_MS). Otherwise none (the engine's own energy-based windows).
   */
  private vadOptions(): EngineVadOptions | undefined {
    const d = this.opts.settings.get().dictation;
    if (d.vadModel !== 'silero' || this.opts.engine.vadStatus.kind !== 'silero') return undefined;
    return fileVadOptions(d);
  }

  /**
   * The words with their speakers: the file's audio through the engine's diarizer stream, read from disk in
   * blocks (MonoBlockReader, 16 kHz) and pushed one at a time, so a long file never sits whole in memory;
   * each word gets the speaker most active over its frames.
   */
  private async withSpeakers(wav: string, words: Word[], signal: AbortSignal): Promise<Word[]> {
    const stream = this.opts.engine.diarizerStream();
    if (!stream) throw new CodedError('NO_DIARIZER', 'Speakers needs a speaker model: choose a Sortformer model in Settings › Speakers.');
    const speakers = new MeetingSpeakers(stream, (message) => this.opts.log.warn(message));
    const reader = await MonoBlockReader.open(wav, { sampleRate: 16000 });
    try {
      for (let block = await reader.next(signal); block; block = await reader.next(signal)) {
        if (block.length === 0) continue;
        speakers.push(block);
        await speakers.settled();
      }
    } catch (error) {
      speakers.close();
      throw error;
    } finally {
      await reader.close();
    }
    const frames = await speakers.finish();
    if (frames.frames === 0) throw new CodedError('DIARIZER_FAILED', 'The speaker model gave no frames for this file; see the log.');
    return speakers.attribute(words);
  }

  async transcribe(path: string, options: FileTranscribeOptions = {}): Promise<FileTranscript> {
    if (!this.opts.engine.loadedModel) {
      throw new CodedError('NO_MODEL', 'No model is loaded. Download or import a model in Models first.');
    }
    if (options.speakers && !this.opts.engine.diarizerLoaded) {
      throw new CodedError('NO_DIARIZER', 'Speakers needs a speaker model: choose a Sortformer model in Settings › Speakers.');
    }
    const jobId = `f${this.nextId++}`;
    const controller = new AbortController();
    this.jobs.set(jobId, controller);
    const decoder = options.decoder ?? this.opts.settings.get().decoder;
    const started = performance.now();
    let lastProgressAt = 0;
    // Announced at once, so the UI learns the job id (for cancel) before the result.
    this.opts.bus.emit('files:progress', { jobId, fraction: 0, path });
    let scratch: string | null = null;
    try {
      let readable = path;
      // Said plainly: a converter would only report "no data" or a format guess for an empty file.
      // A device, a pipe or a /proc file also stats as 0 bytes, and reading one may never end.
      const file = await checkRegularFile(path);
      if (file.kind === 'not-regular') {
        // One sentence that says what it is and what to do (issue 44 item 11: a folder's message repeated itself).
        throw new CodedError('BAD_ARGUMENT', file.what === 'a folder'
          ? `${path} is a folder. Choose an audio file inside it.`
          : `${notRegularMessage(path, file.what)} Choose an audio file.`);
      }
      if (file.kind === 'empty') throw new CodedError('BAD_AUDIO', `${path} is empty (0 bytes); nothing was recorded into it.`);
      if (!(await isWavFile(path))) {
        const converter = await findConverter(this.opts.converterSearchPath);
        if (!converter) throw noConverterError(path);
        scratch = await mkdtemp(join(tmpdir(), 'parakeet-convert-'));
        readable = join(scratch, 'audio.wav');
        const convertStarted = performance.now();
        await convertToWav(converter, path, readable, controller.signal);
        this.opts.log.info(`${path}: converted to WAV by ${converter.name} in ${(performance.now() - convertStarted).toFixed(0)} ms`);
      }
      const result = await this.opts.engine.transcribeFile(
        readable,
        { decoder: decoder === 'auto' ? undefined : decoder, ...vocabularyOptions(this.opts.settings.get().text.vocabulary) },
        {
          signal: controller.signal,
          vad: this.vadOptions(),
          onProgress: (fraction, audio) => {
            const now = performance.now();
            if (now - lastProgressAt < 100 && fraction > 0 && fraction < 1) return;
            lastProgressAt = now;
            this.opts.bus.emit('files:progress', audio
              ? { jobId, fraction, path, audioSec: audio.doneSec, durationSec: audio.totalSec }
              : { jobId, fraction, path });
          },
        },
      );
      const attributed = options.speakers ? await this.withSpeakers(readable, result.words, controller.signal) : result.words;
      this.opts.bus.emit('files:progress', { jobId, fraction: 1, path });
      const elapsedMs = performance.now() - started;
      this.opts.log.info(`${path}: ${result.durationSec.toFixed(1)} s transcribed in ${elapsedMs.toFixed(0)} ms on ${result.devicesRan.join('+')}`);
      const floor = this.opts.settings.get().dictation.minWordConfidence;
      // With the confidence floor on and a word dropped, the text is the kept words'.
      const { text, words } = keepConfidentTranscript({ text: result.text, words: attributed }, floor);
      if (words.length < attributed.length) this.opts.engine.noteSilenceGuards({ wordsDropped: attributed.length - words.length });
      const transcript: FileTranscript = {
        jobId,
        path,
        text,
        words,
        tokens: result.tokens,
        durationSec: result.durationSec,
        devicesRan: result.devicesRan,
        elapsedMs,
        ...(this.opts.engine.loadedModel?.name ? { model: this.opts.engine.loadedModel.name } : {}),
        decoder: result.decoder,
        ...(result.phrasesFired.length ? { phrasesFired: result.phrasesFired } : {}),
        speechCut: result.speechCut,
      };
      await this.opts.onTranscribed?.(transcript);
      return transcript;
    } catch (error) {
      throw describeFileError(error, path);
    } finally {
      this.jobs.delete(jobId);
      if (scratch) await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Jobs running now. */
  jobIds(): string[] {
    return [...this.jobs.keys()];
  }

  cancel(jobId: string): void {
    const job = this.jobs.get(jobId);
    if (!job) throw new CodedError('NOT_FOUND', `There is no running file job ${jobId}.`);
    job.abort();
  }

  dispose(): void {
    for (const job of this.jobs.values()) job.abort();
  }
}
