// The entries of a ZIP archive inside a range of the file (PyTorch's model_weights.ckpt): central
// directory (with ZIP64), each entry's data located through its local header. PyTorch stores its
// entries uncompressed; anything else, and any range past the archive, is refused.
import { type FileRange, NemoFormatError } from './file-range.js';

export interface ZipEntry {
  readonly name: string;
  readonly data: FileRange;
}

const MAX_ENTRIES = 1_000_000;
const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const utf8 = new TextDecoder('utf-8');

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function u64(v: DataView, at: number): number {
  const value = v.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new NemoFormatError('a ZIP64 size or offset is too large');
  return Number(value);
}

/** Where the central directory is and how many entries it holds (the end record, or its ZIP64 form). */
async function centralDirectory(zip: FileRange): Promise<{ offset: number; count: number }> {
  const tailSize = Math.min(zip.size, 22 + 65_535);
  const tail = await zip.read(zip.size - tailSize, tailSize);
  const t = view(tail);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (t.getUint32(i, true) === EOCD) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new NemoFormatError(`${zip.what}: no ZIP end record (truncated, or not a PyTorch checkpoint)`);
  let count = t.getUint16(at + 10, true);
  let offset = t.getUint32(at + 16, true);
  if (count === 0xffff || offset === 0xffffffff) {
    const locatorAt = zip.size - tailSize + at - 20;
    const locator = view(await zip.read(locatorAt, 20));
    if (locator.getUint32(0, true) !== ZIP64_LOCATOR) throw new NemoFormatError(`${zip.what}: ZIP64 locator missing`);
    const record = view(await zip.read(u64(locator, 8), 56));
    if (record.getUint32(0, true) !== ZIP64_EOCD) throw new NemoFormatError(`${zip.what}: ZIP64 end record missing`);
    count = u64(record, 32);
    offset = u64(record, 48);
  }
  if (count > MAX_ENTRIES) throw new NemoFormatError(`${zip.what}: ${count} entries declared, more than a checkpoint holds`);
  return { offset, count };
}

export async function listZip(zip: FileRange): Promise<ZipEntry[]> {
  const { offset, count } = await centralDirectory(zip);
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    const fixed = view(await zip.read(at, 46));
    if (fixed.getUint32(0, true) !== CENTRAL) throw new NemoFormatError(`${zip.what}: central directory entry ${i} is damaged`);
    const method = fixed.getUint16(10, true);
    let compressed = fixed.getUint32(20, true);
    let size = fixed.getUint32(24, true);
    const nameLength = fixed.getUint16(28, true);
    const extraLength = fixed.getUint16(30, true);
    const commentLength = fixed.getUint16(32, true);
    let local = fixed.getUint32(42, true);
    const name = utf8.decode(await zip.read(at + 46, nameLength));
    const extra = view(await zip.read(at + 46 + nameLength, extraLength));
    for (let e = 0; e + 4 <= extra.byteLength; ) {
      const id = extra.getUint16(e, true);
      const length = extra.getUint16(e + 2, true);
      if (id === 0x0001) {
        // ZIP64 extended information: only the fields whose 32-bit value is saturated, in this order.
        let f = e + 4;
        if (size === 0xffffffff) {
          size = u64(extra, f);
          f += 8;
        }
        if (compressed === 0xffffffff) {
          compressed = u64(extra, f);
          f += 8;
        }
        if (local === 0xffffffff) local = u64(extra, f);
      }
      e += 4 + length;
    }
    if (method !== 0 || compressed !== size) {
      throw new NemoFormatError(`${zip.what}: entry ${JSON.stringify(name)} is compressed (method ${method}); PyTorch checkpoints store their entries as they are`);
    }
    const header = view(await zip.read(local, 30));
    if (header.getUint32(0, true) !== LOCAL) throw new NemoFormatError(`${zip.what}: the local header of ${JSON.stringify(name)} is damaged`);
    const dataAt = local + 30 + header.getUint16(26, true) + header.getUint16(28, true);
    entries.push({ name, data: zip.sub(dataAt, size, `${JSON.stringify(name)} in ${zip.what}`) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
