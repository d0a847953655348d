// Epoch milliseconds of a key event from the hook's own timestamp. libuiohook
// stamps each event with the OS's time of the event (X server time on X11:
// ms since the server started). Stamping on receipt instead would add any
// delay of a busy hook process to the event, and a tap could read as a hold.
// The offset between the two clocks is the smallest (receipt − event) seen:
// the promptest delivery. A jump (sleep, the 32-bit X time wrapping) resets it.

const RESET_AFTER_MS = 60_000;

export class EventClock {
  private offset: number | null = null;

  /** `eventTime`: the hook's timestamp (ms, its own origin); `now`: epoch ms at receipt. */
  epochOf(eventTime: number, now: number): number {
    if (!Number.isFinite(eventTime)) return now;
    const raw = now - eventTime;
    if (this.offset === null || raw < this.offset || raw - this.offset > RESET_AFTER_MS) this.offset = raw;
    return Math.min(now, Math.round(eventTime + this.offset));
  }
}
