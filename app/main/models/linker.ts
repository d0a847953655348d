// A model file the user opened (first run's "open a .gguf you already have", the Models view's picker):
// listed by reference, so it shows under Installed, can be switched back to, and stays the active model
// across restarts. It is used from where it is: never copied (models run to gigabytes) and never deleted
// by the app (removing it from the list leaves the file alone). Not hashed either: the installed list's
// size check drops it if the file vanishes or is replaced.
import fs from 'node:fs/promises';
import path from 'node:path';
import { safeStem } from './importer.js';
import type { InstalledIndex } from './installed-index.js';
import type { InstalledModel, ValidatedModelInfo } from './types.js';

export const LINKED_DIR = 'linked';

/** The entry for `file` (already loaded and validated by the engine), added to the index unless one lists that path already. */
export async function linkModelFile(index: InstalledIndex, file: string, info: ValidatedModelInfo): Promise<InstalledModel> {
  const absolute = path.resolve(file);
  const listed = index.findByPath(absolute);
  if (listed) return listed;
  const { size } = await fs.stat(absolute);
  const stem = safeStem(absolute);
  let id = `${LINKED_DIR}/${stem}`;
  for (let n = 2; index.get(id); n += 1) id = `${LINKED_DIR}/${stem}-${n}`;
  const model: InstalledModel = {
    id,
    displayName: info.name || path.basename(absolute),
    file: absolute,
    bytes: size,
    sha256: '',
    source: { kind: 'linked', path: absolute },
    architecture: info.architecture,
    decoders: info.decoders,
    variant: null,
    license: null,
    installedAt: new Date().toISOString(),
  };
  await index.upsert(model);
  return model;
}
