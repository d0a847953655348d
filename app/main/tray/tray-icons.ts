// The tray icon of each look, drawn here (no image files to package): a disc
// in the look's colour with a white ring, anti-aliased, as an RGBA PNG. Pure
// Node (zlib for the PNG's deflate stream); the adapter hands the bytes to
// nativeImage.createFromBuffer.
import { deflateSync } from 'node:zlib';
import type { TrayLook } from './presentation.js';

/** Colours chosen to be told apart on light and dark panels (and by luminance, not only hue). */
export const LOOK_COLOURS: Record<TrayLook, [number, number, number]> = {
  idle: [120, 124, 130], // grey: nothing is heard
  listening: [220, 38, 38], // red: the microphone is live
  transcribing: [217, 119, 6], // amber: working on what was said
  error: [124, 58, 237], // violet with a cut-out: something needs attention
};

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGBA image (row-major, 4 bytes a pixel) as a PNG file. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(raw, y * (width * 4 + 1) + 1);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Coverage of a pixel by a disc (4×4 supersampling). */
function coverage(x: number, y: number, cx: number, cy: number, r: number): number {
  let inside = 0;
  for (let sy = 0; sy < 4; sy++) {
    for (let sx = 0; sx < 4; sx++) {
      const dx = x + (sx + 0.5) / 4 - cx;
      const dy = y + (sy + 0.5) / 4 - cy;
      if (dx * dx + dy * dy <= r * r) inside++;
    }
  }
  return inside / 16;
}

/** The look's icon as RGBA pixels, `size` × `size`. */
export function drawTrayIcon(look: TrayLook, size: number): Uint8Array {
  const px = new Uint8Array(size * size * 4);
  const c = size / 2;
  const outer = size * 0.47;
  const inner = size * 0.36;
  const [r, g, b] = LOOK_COLOURS[look];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const ring = coverage(x, y, c, c, outer);
      const disc = coverage(x, y, c, c, inner);
      // error: a white bar through the disc, so it reads without colour.
      const bar = look === 'error' && Math.abs(y + 0.5 - c) < size * 0.09 && Math.abs(x + 0.5 - c) < size * 0.22 ? 1 : 0;
      const colour = disc * (1 - bar);
      const i = (y * size + x) * 4;
      // White where the ring is not covered by the colour.
      px[i] = Math.round(255 * (1 - colour) + r * colour);
      px[i + 1] = Math.round(255 * (1 - colour) + g * colour);
      px[i + 2] = Math.round(255 * (1 - colour) + b * colour);
      px[i + 3] = Math.round(255 * Math.max(ring, disc));
    }
  }
  return px;
}

export function trayIconPng(look: TrayLook, size: number): Buffer {
  return encodePng(size, size, drawTrayIcon(look, size));
}
