// A file job in window steps: the engine reads and plans the file (no model
// needed, so outside the lane), then each window is one lane job at file
// priority that live dictation preempts (stopped through the engine's abort
// flag and run again after it, at most MAX_FILE_PREEMPTIONS times in a row).
import type { ModelInfo } from '../../../native/index.js';
import type { Logger } from '../log.js';
import { aborted, type RequestHow } from './engine-rpc.js';
import type { LaneJobOptions } from './priority-lane.js';
import type { CodedError, EngineRequest, EngineResponseMap, EngineTranscribeOptions, EngineTranscript } from './protocol.js';

/**
 * Longest window of a file job (s): one lane step. The engine plans the cut points (windows.ts, the same
 * planner as its one-call pass with this maxWindowSec), so the windows are where the engine would cut.
 * At ~25× real time on 2 cores a 20 s window is a ~0.8 s step, which a dictation decode preempts.
 */
export const FILE_WINDOW_SEC = 20;
/**
 * A file window preempted this many times in a row runs to its end the next time: a file job always makes
 * progress, even under dictation that never pauses long enough for a whole window.
 */
export const MAX_FILE_PREEMPTIONS = 3;

type FileOp = 'fileOpen' | 'fileWindow' | 'fileClose';

export interface FileJobDeps {
  log: Logger;
  request: <O extends FileOp>(request: Extract<EngineRequest, { op: O }>, how?: RequestHow) => Promise<EngineResponseMap[O]>;
  /** Runs one window in the host's lane at file priority. */
  inLane: <T>(work: () => Promise<T>, how: LaneJobOptions) => Promise<T>;
  /** In the lane, before a window: the model back if it was unloaded for idleness. */
  reloadIfIdle: () => Promise<void>;
  ran: (devicesRan: string[]) => void;
}

export interface FileJobHow {
  signal?: AbortSignal;
  onProgress?: (fraction: number, audio?: { doneSec: number; totalSec: number }) => void;
}

export async function runFileJob(
  deps: FileJobDeps, model: ModelInfo, path: string, options: EngineTranscribeOptions, how: FileJobHow,
): Promise<EngineTranscript> {
  const { maxWindowSec = FILE_WINDOW_SEC, ...decodeOptions } = options;
  // Reading and planning use no model: outside the lane, beside a decode.
  const opened = await deps.request(
    { op: 'fileOpen', path, sampleRate: model.sampleRate, maxWindowSec, align: model.hopLength * model.subsamplingFactor },
    { signal: how.signal },
  );
  const parts: EngineTranscript[] = [];
  const totalSec = opened.samples / opened.sampleRate;
  how.onProgress?.(0, { doneSec: 0, totalSec });
  try {
    for (let index = 0; index < opened.windows.length; index += 1) {
      parts.push(await fileStep(deps, opened.handle, index, decodeOptions, how.signal));
      const end = opened.windows[index]!.end;
      how.onProgress?.(opened.samples === 0 ? 1 : end / opened.samples, { doneSec: end / opened.sampleRate, totalSec });
    }
  } finally {
    deps.request({ op: 'fileClose', handle: opened.handle }).catch(() => undefined);
  }
  return joinWindows(parts, opened.samples / opened.sampleRate);
}

/** One window of a file job in the lane; stopped and queued again when live work arrives (bounded). */
async function fileStep(deps: FileJobDeps, handle: number, index: number, options: EngineTranscribeOptions, signal?: AbortSignal): Promise<EngineTranscript> {
  for (let preempted = 0; ; preempted += 1) {
    // Cancelled between two windows: the abort event has fired already, so look before listening.
    if (signal?.aborted) throw aborted();
    const step = new AbortController();
    const onAbort = (): void => step.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let yielded = false;
    try {
      return await deps.inLane(async () => {
        if (step.signal.aborted || signal?.aborted) throw aborted();
        await deps.reloadIfIdle();
        const result = await deps.request({ op: 'fileWindow', handle, index, options }, { signal: step.signal });
        deps.ran(result.devicesRan);
        return result;
      }, {
        step: true,
        preempt: preempted < MAX_FILE_PREEMPTIONS ? () => {
          yielded = true;
          step.abort();
        } : undefined,
      });
    } catch (error) {
      if (yielded && !signal?.aborted && (error as CodedError).code === 'ABORTED') {
        deps.log.debug(`file window ${index} yielded to live dictation (${preempted + 1})`);
        continue;
      }
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** A file job's windows as one transcript (text joined with a space as the engine joins its windows). */
function joinWindows(parts: EngineTranscript[], durationSec: number): EngineTranscript {
  const first = parts[0]!;
  const devices = new Set<string>();
  for (const p of parts) for (const d of p.devicesRan) devices.add(d);
  const sum = (key: keyof EngineTranscript['timings']): number => parts.reduce((a, p) => a + p.timings[key], 0);
  return {
    ...first,
    text: parts.map((p) => p.text).filter((t) => t.length > 0).join(' '),
    words: parts.flatMap((p) => p.words),
    tokens: parts.flatMap((p) => p.tokens),
    windows: parts.flatMap((p) => p.windows),
    durationSec,
    devicesRan: [...devices],
    timings: { melMs: sum('melMs'), encoderMs: sum('encoderMs'), decoderMs: sum('decoderMs'), totalMs: sum('totalMs') },
  };
}
