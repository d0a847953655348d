// Files slice: the file transcription this window runs (path, job id,
// progress, phase) and the last few results, newest first. Pure reducers.
// Rules: progress only moves the job this window started (another client's
// job, or a test harness decoding through the same services, is ignored); a
// late progress event never moves a finished job; the result list is bounded.
import type { EventMap, FileTranscript } from '../../app/ipc/contract.js';
import { fileName } from '../format.js';
import type { FileJob, FileResult, FilesSlice } from './types.js';

/** Long meetings make large transcripts; five is plenty to compare decoders or re-export. */
export const MAX_FILE_RESULTS = 5;

const idleJob: FileJob = {
  phase: 'idle', path: '', jobId: null, fraction: 0, cancel: 'none', error: null, startedAt: null, durationSec: null, audioSec: null,
  upload: null,
};

export const initialFiles: FilesSlice = { job: idleJob, queue: [], results: [], shown: null, nextKey: 1 };

export function fileJobStarted(s: FilesSlice, path: string, at = Date.now()): FilesSlice {
  return { ...s, job: { ...idleJob, phase: 'running', path, startedAt: at } };
}

/** Web mode: an upload starts the job; `path` is the file's name until the server says where it put it. */
export function fileUploadStarted(s: FilesSlice, name: string, sizeBytes: number, at = Date.now()): FilesSlice {
  return { ...s, job: { ...idleJob, phase: 'running', path: name, startedAt: at, upload: { name, sizeBytes, receivedBytes: 0, done: false } } };
}

/** Bytes on the server so far (never backwards). */
export function fileUploadProgress(s: FilesSlice, receivedBytes: number): FilesSlice {
  const upload = s.job.upload;
  if (s.job.phase !== 'running' || !upload || upload.done || receivedBytes <= upload.receivedBytes) return s;
  return { ...s, job: { ...s.job, upload: { ...upload, receivedBytes: Math.min(receivedBytes, upload.sizeBytes) } } };
}

/** The whole file is on the server at `path`: the job's progress events will name that path. */
export function fileUploadDone(s: FilesSlice, path: string): FilesSlice {
  const upload = s.job.upload;
  if (s.job.phase !== 'running' || !upload) return s;
  return { ...s, job: { ...s.job, path, upload: { ...upload, receivedBytes: upload.sizeBytes, done: true } } };
}

export function applyFileProgress(s: FilesSlice, ev: EventMap['files:progress']): FilesSlice {
  const job = s.job;
  if (job.phase !== 'running') return s;
  // Until main names the job, its first event is recognized by the path this window sent.
  const ours = job.jobId === null ? ev.path === job.path : ev.jobId === job.jobId;
  if (!ours) return s;
  const fraction = Math.min(1, Math.max(job.fraction, ev.fraction));
  const durationSec = ev.durationSec ?? job.durationSec;
  const audioSec = ev.audioSec === undefined ? job.audioSec : Math.max(job.audioSec ?? 0, ev.audioSec);
  if (job.jobId === ev.jobId && fraction === job.fraction && durationSec === job.durationSec && audioSec === job.audioSec) return s;
  return { ...s, job: { ...job, jobId: ev.jobId, fraction, durationSec, audioSec } };
}

export function fileJobFinished(s: FilesSlice, transcript: FileTranscript, finishedAt: number): FilesSlice {
  const { tokens: _tokens, ...kept } = transcript;
  const upload = s.job.upload;
  const result: FileResult = { key: s.nextKey, transcript: kept, finishedAt, name: upload?.name ?? fileName(transcript.path), uploaded: upload !== null };
  return {
    ...s,
    job: { ...s.job, phase: 'done', jobId: transcript.jobId, fraction: 1, error: null },
    results: [result, ...s.results].slice(0, MAX_FILE_RESULTS),
    shown: result.key,
    nextKey: s.nextKey + 1,
  };
}

/** The job ended without a result: cancelled on request, or failed with `error`. */
export function fileJobEnded(s: FilesSlice, outcome: { cancelled: true } | { cancelled: false; error: string }): FilesSlice {
  if (s.job.phase !== 'running') return s;
  return outcome.cancelled
    ? { ...s, job: { ...s.job, phase: 'cancelled', error: null } }
    : { ...s, job: { ...s.job, phase: 'failed', error: outcome.error } };
}

export function fileCancelRequested(s: FilesSlice): FilesSlice {
  if (s.job.phase !== 'running' || s.job.cancel !== 'none') return s;
  return { ...s, job: { ...s.job, cancel: 'requested' } };
}

export function fileCancelSent(s: FilesSlice): FilesSlice {
  return s.job.cancel === 'requested' ? { ...s, job: { ...s.job, cancel: 'sent' } } : s;
}

/** The job id a requested cancel can now be sent to, or null (not requested, already sent, id not known yet). */
export function pendingCancel(job: FileJob): string | null {
  return job.phase === 'running' && job.cancel === 'requested' ? job.jobId : null;
}

export function fileQueueChanged(s: FilesSlice, queue: FilesSlice['queue']): FilesSlice {
  return { ...s, queue };
}

export function showFileResult(s: FilesSlice, key: number): FilesSlice {
  return s.results.some((r) => r.key === key) ? { ...s, shown: key } : s;
}

export function shownResult(s: FilesSlice): FileResult | null {
  return s.results.find((r) => r.key === s.shown) ?? null;
}
