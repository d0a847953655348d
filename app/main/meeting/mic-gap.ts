// The microphone's page went away mid-meeting (a reload, a renderer crash):
// the meeting records on, and the "You" track must keep its place in time,
// so that its WAV and the system audio's stay aligned sample for sample with
// the meeting clock. While the page is gone the track is padded with silence
// at the clock's pace (a little behind it, so the resumed microphone's first
// frame lands where it was captured, never after silence that overshot); when
// it comes back, the last bit of the gap is filled up to that first frame,
// and the gap is named in a marker ("the microphone was interrupted from t1
// to t2"). Pure arithmetic, no clock of its own: the service passes meeting
// seconds in, so the tests drive every case.
import type { MeetingMarker } from '../../ipc/contract.js';
import { shortClock } from '../../shared/meeting-export.js';

/** How far behind the meeting clock the padding stays while the page is away (s). */
export const PAD_LAG_SEC = 0.25;

/** Input-rate samples of silence that bring a track ending at `trackEndSec` to `targetSec` (0 when it is there). */
export function silenceToReach(trackEndSec: number, targetSec: number, inputRate: number): number {
  return Math.max(0, Math.round((targetSec - trackEndSec) * inputRate));
}

export class MicInterruption {
  private resumedAt: number | null = null;

  /** `fromSec`: meeting seconds where the track's last sample before the page went away ends. */
  /** `what`: the track's source in words ("microphone", "system audio"). */
  constructor(readonly fromSec: number, readonly why: string, readonly what = 'microphone') {}

  /** While the page is away: where the padding may bring the track now (meeting seconds). */
  padTarget(elapsedSec: number): number {
    return Math.max(this.fromSec, elapsedSec - PAD_LAG_SEC);
  }

  /**
   * The first frame of the resumed microphone arrived at `elapsedSec`: its first sample was captured one
   * frame earlier, which is where the gap ends (the padding brings the track there).
   */
  resume(elapsedSec: number, frameSamples: number, inputRate: number): number {
    this.resumedAt = Math.max(this.fromSec, elapsedSec - frameSamples / inputRate);
    return this.resumedAt;
  }

  /** The gap's marker: at its start, saying until when (or that it lasted until the meeting ended). */
  marker(endSec: number | null = this.resumedAt): MeetingMarker {
    const until = endSec === null ? 'the end of the meeting' : shortClock(endSec);
    return {
      at: this.fromSec,
      text: `The ${this.what} was interrupted from ${shortClock(this.fromSec)} to ${until} (${this.why}); the recording holds silence there.`,
    };
  }
}
