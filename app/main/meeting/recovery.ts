// Start-up recovery of a meeting the app stopped during (a crash, a kill, the
// machine going down). The history finds its journal without a closed marker
// and closes it as "recovered" (every final written before the crash is in
// it: finals are fdatasync'ed one by one); this repairs the track files next
// to it, so the audio up to the last sync (≤ 1 s before the crash) plays and
// re-transcribes as a normal WAV.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log.js';
import { repairWav, type RepairResult } from './wav-journal.js';

export async function repairMeetingAudio(dir: string, log: Logger): Promise<Map<string, RepairResult>> {
  const results = new Map<string, RepairResult>();
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`cannot read the meeting audio folder ${dir}`, error);
    return results;
  }
  for (const name of names.filter((n) => n.endsWith('.wav')).sort()) {
    try {
      const result = await repairWav(path.join(dir, name));
      results.set(name, result);
      log.info(`meeting audio ${name} recovered: ${(result.samples / result.sampleRate).toFixed(1)} s` +
        `${result.headerFixed ? ', header fixed' : ''}${result.truncatedBytes ? `, ${result.truncatedBytes} torn byte(s) dropped` : ''}`);
    } catch (error) {
      log.warn(`meeting audio ${name} could not be repaired`, error);
    }
  }
  return results;
}
