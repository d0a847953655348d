// A signal whose every PCM16 sample says where it is: sample i holds (i mod 65521) − 32760, so a lost,
// repeated or shifted sample shows in the file.
export function rampInt(i: number): number {
  return (i % 65521) - 32760;
}

export function rampValue(i: number): number {
  return rampInt(i) / 32767;
}
