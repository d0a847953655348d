// Which VAD the engine runs, from the settings: Silero — the loaded model's own when it is a parakeet.cpp
// bundle with a "vad" component, else the bundled one (verified GGUF, see bundled-silero.ts) — or none
// (the energy VAD). A bundle's VAD that fails to load gives way to the bundled Silero; any other failure
// leaves the energy VAD in charge. Each says why in the engine's VAD status and the log.
import path from 'node:path';
import type { VadModelChoice } from '../../ipc/contract.js';
import type { EngineHost } from '../engine/engine-host.js';
import type { EngineVadStatus } from '../../engine-process/protocol.js';
import type { Logger } from '../log.js';
import { bundledVadModel } from './bundled-silero.js';

/** The loaded ASR model, as far as the VAD choice cares: its file and a bundle's component kinds. */
export interface LoadedModelFile {
  path: string;
  components: readonly { name: string; kind: string }[];
}

export async function applyVadChoice(
  engine: Pick<EngineHost, 'setVad'>, choice: VadModelChoice, userDataDir: string, log: Logger, model: LoadedModelFile | null = null,
): Promise<EngineVadStatus> {
  if (choice === 'energy') return engine.setVad(null);
  const own = model?.components.find((c) => c.kind === 'vad');
  if (model && own) {
    const status = await engine.setVad(model.path);
    if (status.kind === 'silero') {
      log.info(`Silero VAD ${status.sourceVersion} (${status.weightType}) loaded from the bundle component "${own.name}" of ${model.path}`);
      return status;
    }
    log.warn(`the VAD of the bundle ${model.path} (component "${own.name}") did not load (${status.reason}); the bundled Silero VAD runs instead`);
  }
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
