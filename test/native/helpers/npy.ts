// Minimal NumPy .npy reader (format 1.x/2.x, little-endian float32) for CLI dump checks.
export interface NpyArray {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
  data: Float32Array;
  headerLength: number;
}

export function parseNpy(bytes: Uint8Array): NpyArray {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error('npy: bad magic');
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lenBytes = major === 1 ? 2 : 4;
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = 8 + lenBytes;
  const header = new TextDecoder('latin1').decode(bytes.subarray(start, start + headerLength));
  if ((start + headerLength) % 64 !== 0) throw new Error(`npy: data offset ${start + headerLength} is not 64-byte aligned`);
  if (!header.endsWith('\n')) throw new Error('npy: header does not end with a newline');
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) throw new Error(`npy: cannot parse header ${header}`);
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s.length > 0).map(Number);
  if (descr !== '<f4') throw new Error(`npy: expected <f4, got ${descr}`);
  const count = shape.reduce((a, b) => a * b, 1);
  const dataStart = start + headerLength;
  if (bytes.length - dataStart !== count * 4) throw new Error(`npy: ${bytes.length - dataStart} data bytes for shape (${shape.join(', ')})`);
  const copy = bytes.slice(dataStart);
  return { descr, fortranOrder: fortran === 'True', shape, data: new Float32Array(copy.buffer, 0, count), headerLength };
}
