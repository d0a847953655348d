// Import of a local .gguf: its header checked (gguf-precheck.ts), then copied
// (reflinked where the file system can) into the models folder under a
// temporary name, validated by the engine, and only then renamed into place
// and listed. Invalid files are refused with the
// engine's own message. A .nemo takes the same path with its conversion
// (nemo/nemo-import.ts) in place of the copy, and the engine's CPU self-test
// after the load.
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ensureFreeSpace, type FreeSpaceProbe } from './disk-space.js';
import { engineError } from './downloader.js';
import { ModelError, errnoCode, errorMessage } from './errors.js';
import { fsyncDir, removeIfExists, sha256File } from './file-io.js';
import { precheckGguf } from './gguf-precheck.js';
import { importNemo, NemoFormatError } from './nemo/nemo-import.js';
import { NEMO_DEFAULT_WEIGHTS, type NemoWeightType } from '../../ipc/contract.js';
import { checkRegularFile, notRegularMessage } from '../util/regular-file.js';
import type { InstalledIndex } from './installed-index.js';
import type { InstalledModel, ValidateModel, ValidatedModelInfo } from './types.js';

export interface ImportDeps {
  modelsDir: string;
  tempDir: string;
  index: InstalledIndex;
  validateModel: ValidateModel;
  freeSpace: FreeSpaceProbe;
  /** A .nemo conversion's progress (0..1). */
  onProgress?: (fraction: number) => void;
}

export const IMPORT_DIR = 'imported';

/** A file-name stem that is safe on every OS. */
export function safeStem(name: string): string {
  const stem = path
    .basename(name)
    .replace(/\.(gguf|nemo)$/i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 80);
  return stem || 'model';
}

async function freeName(deps: ImportDeps, stem: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const candidate = n === 1 ? stem : `${stem}-${n}`;
    const id = `${IMPORT_DIR}/${candidate}`;
    const onDisk = await fs
      .stat(path.join(deps.modelsDir, IMPORT_DIR, `${candidate}.gguf`))
      .then(() => true)
      .catch(() => false);
    if (!deps.index.get(id) && !onDisk) return candidate;
  }
}

/** Copy-on-write clone where supported (instant on btrfs/APFS/ReFS), a plain copy elsewhere. No hard link: later edits of the original must not change the installed model. */
async function copyIn(srcPath: string, tmp: string): Promise<void> {
  try {
    await fs.copyFile(srcPath, tmp, fsConstants.COPYFILE_FICLONE);
  } catch (e) {
    if (errnoCode(e) === 'ENOSPC') throw new ModelError('DISK_FULL', 'The disk became full while importing the model.', {}, { cause: e });
    throw new ModelError('IO_ERROR', `Could not copy ${srcPath}: ${errorMessage(e)}`, {}, { cause: e });
  }
}

/** A NeMo checkpoint converted to a parakeet.cpp GGUF; the engine validates and self-tests it next. */
async function convertNemo(srcPath: string, tmp: string, weightType: NemoWeightType, signal?: AbortSignal, onProgress?: (fraction: number) => void): Promise<void> {
  try {
    await importNemo(srcPath, tmp, { weightType, signal, onProgress });
  } catch (e) {
    if (e instanceof NemoFormatError) throw new ModelError(signal?.aborted ? 'CANCELLED' : 'MODEL_INVALID', `${srcPath}: ${e.message}`, {}, { cause: e });
    if (errnoCode(e) === 'ENOSPC') throw new ModelError('DISK_FULL', 'The disk became full while converting the .nemo.', {}, { cause: e });
    throw new ModelError('IO_ERROR', `Could not convert ${srcPath}: ${errorMessage(e)}`, {}, { cause: e });
  }
}

export interface ImportFileOptions {
  signal?: AbortSignal;
  /** A .nemo's matmul weights as converted (default NEMO_DEFAULT_WEIGHTS). */
  nemoWeights?: NemoWeightType;
}

export async function importModelFile(deps: ImportDeps, srcPath: string, options: ImportFileOptions = {}): Promise<InstalledModel> {
  const { signal } = options;
  let size: number;
  try {
    const file = await checkRegularFile(srcPath);
    if (file.kind === 'not-regular') throw new ModelError('IO_ERROR', `${notRegularMessage(srcPath, file.what)} Choose a .gguf model file.`);
    size = file.kind === 'regular' ? file.size : 0;
  } catch (e) {
    if (e instanceof ModelError) throw e;
    throw new ModelError(
      'IO_ERROR',
      errnoCode(e) === 'ENOENT' ? `The file ${srcPath} does not exist.` : `Cannot read ${srcPath}: ${errorMessage(e)}`,
      {},
      { cause: e },
    );
  }
  const nemo = /\.nemo$/i.test(srcPath);
  // Cheap checks first: nothing is copied or hashed for a file that can never be a model.
  if (!nemo) await precheckGguf(srcPath, size);
  await ensureFreeSpace(deps.freeSpace, deps.tempDir, size);

  const tmp = path.join(deps.tempDir, `import-${randomBytes(6).toString('hex')}.gguf`);
  try {
    if (nemo) await convertNemo(srcPath, tmp, options.nemoWeights ?? NEMO_DEFAULT_WEIGHTS, signal, deps.onProgress);
    else await copyIn(srcPath, tmp);
    const { sha256, bytes } = await sha256File(tmp, signal);
    const same = deps.index.findBySha256(sha256);
    if (same) return same; // identical bytes are installed already

    let info: ValidatedModelInfo;
    try {
      // A file this app wrote from a checkpoint also runs the engine's self-test: a load alone would
      // accept NaN or garbage weights.
      info = await deps.validateModel(tmp, signal, { selfTest: nemo });
    } catch (e) {
      const refusal = engineError(e);
      if (refusal.code === 'MODEL_INVALID') {
        throw new ModelError('MODEL_INVALID', refusal.message, {}, { cause: e });
      }
      throw e; // an engine problem (busy, out of memory, …), not a verdict on the file
    }

    const stem = await freeName(deps, safeStem(srcPath));
    const dir = path.join(deps.modelsDir, IMPORT_DIR);
    await fs.mkdir(dir, { recursive: true });
    const file = `${IMPORT_DIR}/${stem}.gguf`;
    await fs.rename(tmp, path.join(deps.modelsDir, file));
    await fsyncDir(dir);
    const model: InstalledModel = {
      id: `${IMPORT_DIR}/${stem}`,
      displayName: info.name ? `${info.name} (imported)` : `${stem} (imported)`,
      file,
      bytes,
      sha256,
      source: { kind: 'imported', originalName: path.basename(srcPath) },
      architecture: info.architecture,
      decoders: info.decoders,
      variant: null,
      license: null,
      installedAt: new Date().toISOString(),
    };
    await deps.index.upsert(model);
    return model;
  } finally {
    await removeIfExists(tmp);
  }
}
