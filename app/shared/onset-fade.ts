// The onset fade: the first milliseconds of audio cut out at a trained VAD's onset raised from 0 (a half cosine)
// before it is decoded. Silero's segment starts its pad (30 ms) before the speech, in whatever the room holds; cut
// there, the decoded audio begins with a step from nothing to the noise at full level — a broadband click the
// speech model hears as a consonant in front of the first word (bench:vad: most of the errors Silero's cut adds
// are at a string's first word). Raising the first 16 ms removes the step and keeps the pad's context.
// bench:vad's held-out set, ten draws, the trained digits model: errors summed 171 → 160 cut as files, 178 → 162
// cut live (better on 6 and 7 draws, worse on 2); 8 ms changed nothing, 30 ms less, a fade-out at the end
// nothing (bench-results/vad-onset-fade.txt). Pure: no engine.

/** The fade's length (ms) at a Silero onset: files' speech windows, dictation and meeting segments. */
export const ONSET_FADE_MS = 16;

/** `pcm` with its first `ms` raised from 0 by a half cosine (a copy; `pcm` is not changed). */
export function fadeInOnset(pcm: Float32Array, sampleRate: number, ms = ONSET_FADE_MS): Float32Array {
  const n = Math.min(pcm.length, Math.round((Math.max(0, ms) / 1000) * sampleRate));
  if (n === 0) return pcm;
  const out = Float32Array.from(pcm);
  for (let i = 0; i < n; i += 1) out[i] = out[i]! * (0.5 - 0.5 * Math.cos((Math.PI * i) / n));
  return out;
}

/**
 * Whether a file cut by Silero with these settings fades its windows' onsets: only when each segment keeps some
 * of its pad in front of the speech (pad longer than the edge trim). With none, the window starts at the speech
 * itself, and a fade would take the start of the first word (as live: onset-fade-option.ts).
 */
export function fadesFileOnsets(vad: { padMs: number; trimMs?: number }): boolean {
  return vad.padMs > (vad.trimMs ?? 0);
}
