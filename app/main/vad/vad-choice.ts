// Which VAD the engine runs, from the settings: the bundled Silero (verified GGUF, see bundled-silero.ts)
// or none (the energy VAD). Any failure leaves the energy VAD in charge and says why in the engine's
// VAD status and the log.
import path from 'node:path';
import type { VadModelChoice } from '../../ipc/contract.js';
import type { EngineHost } from '../engine/engine-host.js';
import type { EngineVadStatus } from '../../engine-process/protocol.js';
import type { Logger } from '../log.js';
import { bundledVadModel } from './bundled-silero.js';

export async function applyVadChoice(
  engine: Pick<EngineHost, 'setVad'>, choice: VadModelChoice, userDataDir: string, log: Logger,
): Promise<EngineVadStatus> {
  if (choice === 'energy') return engine.setVad(null);
  let file: string;
  try {
    file = await bundledVadModel(path.join(userDataDir, 'vad'));
  } catch (error) {
    const reason = `the bundled Silero VAD is not available (${(error as Error).message}); using the energy VAD`;
    log.warn(reason);
    return engine.setVad(null, reason);
  }
  const status = await engine.setVad(file);
  if (status.kind === 'silero') log.info(`Silero VAD ${status.sourceVersion} (${status.weightType}) loaded from ${file}`);
  return status;
}
