// The figures beside a file job's progress bar, in words. DOM-free.
import { formatEta, formatMs } from '../../format.js';

/** `m:ss` (or `h:mm:ss`) of audio. */
function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** The figures beside the bar: position in the audio, time so far and an estimate of the time left. */
export function progressFigures(job: { fraction: number; audioSec: number | null; durationSec: number | null }, elapsedMs: number): string {
  const parts = [`${Math.floor(job.fraction * 100)} %`];
  if (job.durationSec !== null) parts.push(`${clock(job.audioSec ?? 0)} of ${clock(job.durationSec)} of audio`);
  parts.push(`${formatMs(elapsedMs)} so far`);
  if (job.fraction > 0 && job.fraction < 1 && elapsedMs > 0) {
    const left = (elapsedMs * (1 - job.fraction)) / job.fraction / 1000;
    parts.push(left < 1 ? 'under a second left' : `about ${formatEta(left).replace(/ left$/, '')} left`);
  } else if (job.fraction === 0) parts.push('estimating time left…');
  return parts.join(' · ');
}
