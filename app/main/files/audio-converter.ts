// Recordings that are not WAV (m4a from a phone, mp3, flac, ogg/opus, the
// audio of a video) are converted to a temporary 16 kHz mono 16-bit WAV by a
// converter already on the user's machine — ffmpeg, else sox — and the engine
// reads that. No decoder of our own: these formats are large, patent-laden
// or both, and the converters handle them properly. Nothing found: a clear
// error with the install command and the one-line manual conversion.
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { CodedError } from '../../../types/errors.js';
import { MonoBlockReader } from '../../engine-process/wav-file.js';
import { fileReadError } from '../../shared/fs-error.js';

export interface Converter {
  name: 'ffmpeg' | 'sox';
  executable: string;
}

/** RIFF/WAVE (and RF64, the >4 GB variant) is what the engine reads itself. */
export async function isWavFile(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r').catch((error: unknown) => {
    throw fileReadError(file, error, 'audio file');
  });
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await handle.read(head, 0, 12, 0).catch((error: unknown) => {
      throw fileReadError(file, error, 'audio file');
    });
    if (bytesRead < 12) return false;
    const riff = head.toString('latin1', 0, 4);
    return (riff === 'RIFF' || riff === 'RF64') && head.toString('latin1', 8, 12) === 'WAVE';
  } finally {
    await handle.close();
  }
}

/** The first ffmpeg or sox on `searchPath` (default: $PATH), or null. */
export async function findConverter(searchPath = process.env.PATH ?? ''): Promise<Converter | null> {
  const suffixes = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const name of ['ffmpeg', 'sox'] as const) {
    for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
      for (const suffix of suffixes) {
        const executable = path.join(dir, name + suffix);
        try {
          await fs.access(executable, constants.X_OK);
          return { name, executable };
        } catch {
          /* not here */
        }
      }
    }
  }
  return null;
}

/** The converter's arguments: any input → 16 kHz mono 16-bit PCM WAV, audio only. */
export function conversionArgs(converter: Converter['name'], input: string, output: string): string[] {
  if (converter === 'ffmpeg') {
    return ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-i', input, '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-f', 'wav', output];
  }
  return ['-q', input, '-c', '1', '-r', '16000', '-b', '16', '-e', 'signed-integer', output];
}

export function noConverterError(file: string): CodedError {
  return new CodedError(
    'BAD_AUDIO',
    `${path.basename(file)} is not a WAV file, and neither ffmpeg nor sox is installed to convert it. ` +
      'Install ffmpeg (Debian/Ubuntu: sudo apt-get install ffmpeg; macOS: brew install ffmpeg; Windows: winget install ffmpeg) ' +
      `and try again, or convert it yourself: ffmpeg -i "${path.basename(file)}" -ar 16000 -ac 1 out.wav`,
  );
}

/** Samples in a converter's output WAV (its header alone, no samples read). */
async function producedAudio(wav: string): Promise<number> {
  const reader = await MonoBlockReader.open(wav);
  await reader.close();
  return reader.samples;
}

/** Runs the conversion; rejects BAD_AUDIO with the converter's own words, or ABORTED when `signal` fires. */
export function convertToWav(converter: Converter, input: string, output: string, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new CodedError('ABORTED', 'The transcription was cancelled.'));
      return;
    }
    const child = spawn(converter.executable, conversionArgs(converter.name, input, output), { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000); // the tail says what went wrong; bounded
    });
    const onAbort = () => child.kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new CodedError('BAD_AUDIO', `${converter.name} could not be started (${error.message}).`));
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) reject(new CodedError('ABORTED', 'The transcription was cancelled.'));
      else if (code === 0) void producedAudio(output).then((samples) => {
        if (samples > 0) return resolve();
        // A damaged file can convert "successfully" to nothing: say so, not "the audio is empty".
        const said = stderr.trim().split('\n').slice(-2).join(' ').trim();
        reject(new CodedError(
          'BAD_AUDIO',
          `${path.basename(input)} could not be decoded: ${converter.name} found no audio in it${said ? ` (${said})` : ''}; the file is damaged ` +
            'or holds no sound track. If it plays elsewhere, convert it yourself: ' +
            `ffmpeg -i "${path.basename(input)}" -ar 16000 -ac 1 out.wav`,
        ));
      }, reject);
      else {
        const why = stderr.trim().split('\n').slice(-3).join(' ').trim() || `exit code ${code}`;
        reject(new CodedError(
          'BAD_AUDIO',
          `${path.basename(input)} is not a WAV file, and ${converter.name} could not convert it (${why}). ` +
            'Check that it is an audio or video recording; if it is, convert it yourself: ' +
            `ffmpeg -i "${path.basename(input)}" -ar 16000 -ac 1 out.wav`,
        ));
      }
    });
  });
}
