// What can be told about a would-be model from its first 24 bytes, before an
// import copies or hashes it: a 10 GB video picked by mistake is refused in a
// millisecond instead of after a 10 GB copy. The engine's validation of the
// copy stays the real check; this only refuses what can never pass it.
// Messages never quote the file's bytes (the path may name any readable file):
// a few formats people pick by mistake are named by their magic instead.
import fs from 'node:fs/promises';
import path from 'node:path';
import { ModelError } from './errors.js';

/** magic, version (u32), tensor count (u64), key/value count (u64). */
export const GGUF_HEADER_BYTES = 24;

const KNOWN_FORMATS: readonly { magic: readonly number[]; what: string }[] = [
  { magic: [0x52, 0x49, 0x46, 0x46], what: 'a RIFF file (WAV audio?)' },
  { magic: [0x50, 0x4b, 0x03, 0x04], what: 'a ZIP archive (a PyTorch checkpoint?)' },
  { magic: [0x7f, 0x45, 0x4c, 0x46], what: 'an ELF executable' },
  { magic: [0x4f, 0x67, 0x67, 0x53], what: 'Ogg audio' },
  { magic: [0x66, 0x4c, 0x61, 0x43], what: 'FLAC audio' },
  { magic: [0x49, 0x44, 0x33], what: 'MP3 audio' },
  { magic: [0x89, 0x50, 0x4e, 0x47], what: 'a PNG image' },
  { magic: [0x25, 0x50, 0x44, 0x46], what: 'a PDF document' },
  { magic: [0x1f, 0x8b], what: 'a gzip archive (a .nemo file must be unpacked and converted first)' },
];

const CONVERT = ': convert the checkpoint to GGUF first (parakeet.cpp\'s converter)';

/**
 * " (it is …)" for the checkpoint formats a Parakeet model comes in before conversion — by extension (their
 * content starts like any ZIP, tar or protobuf), or for safetensors by its JSON header after a u64 length —
 * else " (it looks like …)" for a known magic, else "". As the engine says it (gguf_file.cpp, known_format).
 */
export function knownFormat(filePath: string, head: Uint8Array): string {
  const ext = path.extname(filePath).toLowerCase();
  if (ext === '.nemo') return ` (it is a NeMo checkpoint, .nemo${CONVERT})`;
  if (ext === '.onnx') return ` (it is an ONNX model${CONVERT})`;
  if (ext === '.safetensors' || (head.length >= 10 && head[8] === 0x7b && head[9] === 0x22 && head[6] === 0 && head[7] === 0)) {
    return ` (it is a safetensors file${CONVERT})`;
  }
  const found = KNOWN_FORMATS.find((f) => f.magic.every((b, i) => head[i] === b));
  return found ? ` (it looks like ${found.what})` : '';
}

/** Throws MODEL_INVALID unless the file starts like a GGUF model of a version the engine reads. */
export async function precheckGguf(filePath: string, size: number): Promise<void> {
  const invalid = (what: string): never => {
    throw new ModelError('MODEL_INVALID', `${filePath}: ${what}; choose a .gguf model in the parakeet.cpp format.`);
  };
  if (size < GGUF_HEADER_BYTES) invalid(`only ${size} bytes, too small to be a GGUF model`);
  const head = new Uint8Array(GGUF_HEADER_BYTES);
  const handle = await fs.open(filePath, 'r');
  try {
    const { bytesRead } = await handle.read(head, 0, GGUF_HEADER_BYTES, 0);
    if (bytesRead < GGUF_HEADER_BYTES) invalid(`only ${bytesRead} bytes could be read, too few for a GGUF header`);
  } finally {
    await handle.close();
  }
  if (!(head[0] === 0x47 && head[1] === 0x47 && head[2] === 0x55 && head[3] === 0x46)) {
    invalid(`not a GGUF file${knownFormat(filePath, head)}: a GGUF model starts with "GGUF"`);
  }
  const version = new DataView(head.buffer).getUint32(4, true);
  if (version < 2 || version > 3) invalid(`GGUF version ${version} is not supported (expected 2 or 3)`);
}
