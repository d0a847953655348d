// The members of an uncompressed tar (a .nemo): names, data offsets and sizes from the 512-byte
// headers (ustar / GNU long names / pax paths). Nothing is extracted; links, traversal paths and
// sizes past the end of the file are refused.
import { type FileRange, NemoFormatError } from './file-range.js';

export interface TarMember {
  readonly name: string;
  readonly data: FileRange;
}

const BLOCK = 512;
const MAX_MEMBERS = 10_000;
const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

function field(header: Uint8Array, at: number, length: number): string {
  const bytes = header.subarray(at, at + length);
  const end = bytes.indexOf(0);
  return latin1.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** An octal number field, or GNU base-256 (first byte 0x80) for sizes ≥ 8 GiB. */
function numberField(header: Uint8Array, at: number, length: number, what: string): number {
  if (header[at] === 0x80) {
    let value = 0;
    for (let i = at + 1; i < at + length; i++) value = value * 256 + header[i];
    if (!Number.isSafeInteger(value)) throw new NemoFormatError(`${what} is too large`);
    return value;
  }
  const text = field(header, at, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new NemoFormatError(`${what} is not an octal number: not a .nemo (tar) archive, or a damaged one`);
  return text === '' ? 0 : parseInt(text, 8);
}

function checksumMatches(header: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
  return numberField(header, 148, 8, 'tar header checksum') === sum;
}

/** A member name as the archive means it; traversal and absolute paths are refused (untrusted input). */
function safeName(raw: string): string {
  const name = raw.replace(/^(\.\/)+/, '');
  if (name.startsWith('/') || name.includes('\\') || name.split('/').includes('..')) {
    throw new NemoFormatError(`tar member ${JSON.stringify(name.slice(0, 100))} points outside the archive (path traversal): refused`);
  }
  return name;
}

/** The path record of a pax extended header, if any. */
function paxPath(data: Uint8Array): string | undefined {
  const text = utf8.decode(data);
  let path: string | undefined;
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(' ', at);
    const length = parseInt(text.slice(at, space), 10);
    if (space < 0 || !(length > 0)) break;
    const record = text.slice(space + 1, at + length - 1);
    if (record.startsWith('path=')) path = record.slice(5);
    at += length;
  }
  return path;
}

export async function listTar(file: FileRange): Promise<TarMember[]> {
  const members: TarMember[] = [];
  let offset = 0;
  let longName: string | undefined;
  while (offset + BLOCK <= file.size) {
    const header = await file.read(offset, BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumMatches(header)) throw new NemoFormatError(`tar header at byte ${offset} has a wrong checksum: not a .nemo (tar) archive, or a damaged one`);
    const size = numberField(header, 124, 12, 'tar member size');
    const type = String.fromCharCode(header[156] || 0x30);
    const data = file.sub(offset + BLOCK, size, `tar member at byte ${offset}`);
    const prefix = field(header, 345, 155);
    const plain = prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100);
    if (type === 'L') {
      longName = latin1.decode(await data.read(0, Math.min(size, 4096))).replace(/\0.*$/s, '');
    } else if (type === 'x') {
      longName = paxPath(await data.read(0, Math.min(size, 65_536))) ?? longName;
    } else if (type === '1' || type === '2') {
      throw new NemoFormatError(`tar member ${JSON.stringify(plain.slice(0, 100))} is a link: a .nemo holds plain files only`);
    } else if (type === '0' || type === '7') {
      members.push({ name: safeName(longName ?? plain), data });
      longName = undefined;
      if (members.length > MAX_MEMBERS) throw new NemoFormatError(`more than ${MAX_MEMBERS} tar members: not a .nemo archive`);
    } else {
      longName = undefined;  // directories, pax globals and the like carry nothing a .nemo needs
    }
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return members;
}
