// A Silero VAD model as the app names it to the user (Devices, a file's "Speech found by", the CLI): one spelling.

/** "Silero VAD v6.2 (F32)". */
export function sileroModelName(sourceVersion: string, weightType: string): string {
  return `Silero VAD ${sourceVersion} (${weightType.toUpperCase()})`;
}
