// A file job in window steps: the engine reads and plans the file (no model
// needed, so outside the lane), then each window is one lane step at file
// priority. Live dictation runs beside a window (the engine decodes it on the
// dictation state while the window runs on the file state), so it never waits
// for one; a load or a check waits for the window to end.
import type { DeviceInfo, ModelInfo } from '../../../native/index.js';
import type { FileSpeechCut } from '../../ipc/contract.js';
import type { Logger } from '../log.js';
import { aborted, type RequestHow } from './engine-rpc.js';
import type { LaneJobOptions } from './priority-lane.js';
import type { EngineFileHandle, EngineRequest, EngineResponseMap, EngineTranscribeOptions, EngineTranscript, EngineVadOptions } from '../../engine-process/protocol.js';
import { CodedError } from '../../../types/errors.js';

/**
 * Longest window of a file job (s): one lane step. The engine plans the cut points (windows.ts, the same
 * planner as its one-call pass with this maxWindowSec), so the windows are where the engine would cut.
 * At ~25× real time on 2 cores a 20 s window is a ~0.8 s step: what a load or a check waits at most.
 */
export const FILE_WINDOW_SEC = 20;

type FileOp = 'fileOpen' | 'fileWindow' | 'fileClose';

export interface FileJobDeps {
  log: Logger;
  request: <O extends FileOp>(request: Extract<EngineRequest, { op: O }>, how?: RequestHow) => Promise<EngineResponseMap[O]>;
  /** Runs one window in the host's lane at file priority. */
  inLane: <T>(work: () => Promise<T>, how: LaneJobOptions) => Promise<T>;
  /** In the lane, before a window: the model back if it was unloaded for idleness. */
  reloadIfIdle: () => Promise<void>;
  /** CPU threads for the window about to run (undefined: all of the state's); fewer while dictation may decode beside it. */
  windowThreads: () => number | undefined;
  ran: (devicesRan: string[]) => void;
  /**
   * The device the model runs on now. The engine dying during a window on a GPU is the device's failure (the
   * host marks it and reloads on the next device): the job reads the file again and goes on from that window.
   * On the CPU the file itself may be the cause, so the job fails as before.
   */
  modelDevice?: () => DeviceInfo | null;
}

/** A file job's transcript and how its speech was found. */
export type FileJobTranscript = EngineTranscript & { speechCut: FileSpeechCut };

export interface FileJobHow {
  signal?: AbortSignal;
  /** Cut the file by the engine's trained VAD (when it has one loaded): only speech is decoded. */
  vad?: EngineVadOptions;
  onProgress?: (fraction: number, audio?: { doneSec: number; totalSec: number }) => void;
}

export async function runFileJob(
  deps: FileJobDeps, model: ModelInfo, path: string, options: EngineTranscribeOptions, how: FileJobHow,
): Promise<FileJobTranscript> {
  const { maxWindowSec = FILE_WINDOW_SEC, ...decodeOptions } = options;
  // Reading and planning use no model: outside the lane, beside a decode.
  const open = () => deps.request(
    { op: 'fileOpen', path, sampleRate: model.sampleRate, maxWindowSec, align: model.hopLength * model.subsamplingFactor, vad: how.vad },
    { signal: how.signal },
  );
  const opened = await open();
  let handle: number | null = opened.handle;
  /** The device the engine died on when the job was resumed (once). */
  let resumed: string | null = null;
  const parts: EngineTranscript[] = [];
  const totalSec = opened.samples / opened.sampleRate;
  how.onProgress?.(0, { doneSec: 0, totalSec });
  try {
    for (let index = 0; index < opened.windows.length; index += 1) {
      const step: { device: DeviceInfo | null } = { device: null };
      try {
        parts.push(await fileStep(deps, handle, index, decodeOptions, how.signal, step));
      } catch (error) {
        if ((error as CodedError).code !== 'ENGINE_CRASHED') throw error;
        // The dead engine's handle is gone, and handle numbers start again in the new one: never close it there.
        handle = null;
        const device = step.device;
        if (resumed) {
          throw new CodedError('ENGINE_CRASHED', `${(error as Error).message} (the second time for this file: it had been read again ` +
            `after the engine stopped on ${resumed}, so the file itself may cause it)`);
        }
        if (!device || device.type === 'cpu') throw error;
        // Once per job: the restarted engine (the model on the next device) reads the file again. Its plan is
        // the same (the same file, options and VAD), so the windows decoded so far are kept.
        resumed = device.name;
        deps.log.warn(`${path}: the engine stopped during window ${index + 1} of ${opened.windows.length} on ${device.name}; ` +
          'reading the file again to go on from that window');
        const again = await open();
        handle = again.handle;
        if (!samePlan(again, opened)) throw error;
        index -= 1;
        continue;
      }
      const end = opened.windows[index]!.end;
      how.onProgress?.(opened.samples === 0 ? 1 : end / opened.samples, { doneSec: end / opened.sampleRate, totalSec });
    }
  } finally {
    if (handle !== null) deps.request({ op: 'fileClose', handle }).catch(() => undefined);
  }
  const decodedSamples = opened.windows.reduce((n, w) => n + (w.end - w.begin), 0);
  const speechCut: FileSpeechCut = { ...opened.speechCut, decodedSec: opened.sampleRate > 0 ? decodedSamples / opened.sampleRate : 0 };
  return { ...joinWindows(parts, opened.samples / opened.sampleRate, model), speechCut };
}

/** The same windows over the same samples: a job resumed on a second reading keeps the windows decoded before. */
function samePlan(a: EngineFileHandle, b: EngineFileHandle): boolean {
  return a.samples === b.samples && a.windows.length === b.windows.length && a.windows.every((w, i) => w.begin === b.windows[i]!.begin && w.end === b.windows[i]!.end);
}

/** One window of a file job, one lane step. */
async function fileStep(
  deps: FileJobDeps, handle: number, index: number, options: EngineTranscribeOptions, signal: AbortSignal | undefined,
  step: { device: DeviceInfo | null },
): Promise<EngineTranscript> {
  // Cancelled between two windows: the abort event has fired already, so look before sending.
  if (signal?.aborted) throw aborted();
  return deps.inLane(async () => {
    if (signal?.aborted) throw aborted();
    await deps.reloadIfIdle();
    // In the lane, right before the window: the device it runs on (a failover ahead of it in the lane may have moved the model).
    step.device = deps.modelDevice?.() ?? null;
    const maxThreads = deps.windowThreads();
    const result = await deps.request({ op: 'fileWindow', handle, index, options: maxThreads ? { ...options, maxThreads } : options }, { signal });
    deps.ran(result.devicesRan);
    return result;
  }, { step: true });
}

/** A file job's windows as one transcript (text joined with a space as the engine joins its windows); also the CLI's --vad. */
export function joinWindows(parts: EngineTranscript[], durationSec: number, model: ModelInfo): EngineTranscript {
  // No window at all: the VAD found no speech in the file.
  const first: EngineTranscript = parts[0] ?? {
    text: '', words: [], tokens: [], durationSec, decoder: model.defaultDecoder, device: model.device.device.name, devicesRan: [],
    timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, windows: [], threadsUsed: 0, phrasesFired: [], phrasesRejected: [],
  };
  const devices = new Set<string>();
  for (const p of parts) for (const d of p.devicesRan) devices.add(d);
  const sum = (key: keyof EngineTranscript['timings']): number => parts.reduce((a, p) => a + p.timings[key], 0);
  return {
    ...first,
    text: parts.map((p) => p.text).filter((t) => t.length > 0).join(' '),
    words: parts.flatMap((p) => p.words),
    tokens: parts.flatMap((p) => p.tokens),
    windows: parts.flatMap((p) => p.windows),
    // Each window reports the phrases it found; the first says which could not be used (the list is the same).
    phrasesFired: [...new Set(parts.flatMap((p) => p.phrasesFired))],
    durationSec,
    devicesRan: [...devices],
    timings: { melMs: sum('melMs'), encoderMs: sum('encoderMs'), decoderMs: sum('decoderMs'), totalMs: sum('totalMs') },
  };
}
