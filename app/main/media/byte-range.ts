// The HTTP Range header of a media request (RFC 9110 §14), for the one form
// players send: a single `bytes=` range. `bytes=a-b`, `bytes=a-` (to the end)
// and `bytes=-n` (the last n bytes) are understood; anything else that is not
// a single satisfiable range is either ignored (the whole file is sent, as the
// RFC allows for several ranges or another unit) or refused with 416.

/** Inclusive byte positions, as Content-Range writes them. */
export interface ByteRange {
  start: number;
  end: number;
}

export type RangeAnswer =
  /** No usable Range: send everything with 200. */
  | { kind: 'whole' }
  | { kind: 'partial'; range: ByteRange }
  /** Syntactically a range, but none of it lies in the resource: 416 with `bytes *\/size`. */
  | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

export function parseByteRange(header: string | null | undefined, size: number): RangeAnswer {
  if (header === null || header === undefined) return { kind: 'whole' };
  const spec = header.trim().replace(/\s+/g, '');
  // Several ranges (a comma) or another unit: the RFC lets a server ignore the header.
  if (!spec.startsWith('bytes=') || spec.includes(',')) return { kind: 'whole' };
  const m = SINGLE.exec(spec);
  if (!m) return { kind: 'unsatisfiable' };
  const [, first, last] = m as unknown as [string, string, string];
  // Beyond 2^53 nothing is exact; no file here is that large.
  if (first.length > 15 || last.length > 15) return { kind: 'unsatisfiable' };
  if (first === '' && last === '') return { kind: 'unsatisfiable' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (end < start) return { kind: 'unsatisfiable' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end: Math.min(end, size - 1) } };
}
