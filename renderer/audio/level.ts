// Input level for the meter: RMS in dBFS mapped onto 0..1 so that quiet room
// noise (≈ -60 dBFS) sits near the bottom and normal speech (≈ -20 dBFS)
// fills most of the bar. DOM-free.

export const METER_FLOOR_DB = -60;

export function rms(samples: Float32Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / samples.length);
}

export function rmsToDb(value: number): number {
  return value > 0 ? 20 * Math.log10(value) : -Infinity;
}

/** 0 at or below the floor, 1 at 0 dBFS, linear in dB between. */
export function levelFromRms(value: number): number {
  const db = rmsToDb(value);
  if (!Number.isFinite(db) || db <= METER_FLOOR_DB) return 0;
  return Math.min(1, (db - METER_FLOOR_DB) / -METER_FLOOR_DB);
}

/**
 * Meter ballistics: rise at once, fall slowly, so the bar is readable instead
 * of flickering with every 40 ms frame.
 */
export function smoothLevel(previous: number, next: number, fallPerFrame = 0.08): number {
  return next >= previous ? next : Math.max(next, previous - fallPerFrame);
}
