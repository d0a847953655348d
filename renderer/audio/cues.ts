// Start and stop cues (settings.desktop.sounds, off by default): two short
// tones generated with WebAudio, no sound files. Start rises, stop falls, so
// they are told apart without looking. They are quiet and short (≤ 160 ms) so
// the microphone, already open, hears little of them; the pre-roll keeps the
// audio from before the cue, so the first word is never lost to it.

export type Cue = 'start' | 'stop';

export interface Tone {
  /** Hz */
  frequency: number;
  /** Seconds from the cue's start. */
  at: number;
  /** Seconds. */
  duration: number;
}

/** Each cue's notes (pure, so tests read them). */
export const CUE_TONES: Record<Cue, Tone[]> = {
  start: [
    { frequency: 660, at: 0, duration: 0.07 },
    { frequency: 990, at: 0.08, duration: 0.08 },
  ],
  stop: [
    { frequency: 990, at: 0, duration: 0.07 },
    { frequency: 660, at: 0.08, duration: 0.08 },
  ],
};

/** Peak gain: audible on laptop speakers, far below speech at the microphone. */
export const CUE_GAIN = 0.12;

export type CuePlayer = (cue: Cue) => void;

export const silentCues: CuePlayer = () => undefined;

/** Plays cues on one lazily created AudioContext (the default output device). */
export function webAudioCues(): CuePlayer {
  let context: AudioContext | null = null;
  return (cue) => {
    try {
      context ??= new AudioContext({ latencyHint: 'interactive' });
      if (context.state === 'suspended') void context.resume();
      const now = context.currentTime + 0.01;
      for (const tone of CUE_TONES[cue]) {
        const osc = context.createOscillator();
        const gain = context.createGain();
        osc.type = 'sine';
        osc.frequency.value = tone.frequency;
        // 5 ms attack and release: no click at the edges.
        const start = now + tone.at;
        const end = start + tone.duration;
        gain.gain.setValueAtTime(0, start);
        gain.gain.linearRampToValueAtTime(CUE_GAIN, start + 0.005);
        gain.gain.setValueAtTime(CUE_GAIN, end - 0.005);
        gain.gain.linearRampToValueAtTime(0, end);
        osc.connect(gain).connect(context.destination);
        osc.start(start);
        osc.stop(end + 0.01);
      }
    } catch {
      // No audio output: a cue is a courtesy, never a failure.
    }
  };
}
