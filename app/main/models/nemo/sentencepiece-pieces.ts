// The pieces of a SentencePiece model (the tokenizer .model inside a .nemo): ModelProto field 1 is
// the repeated SentencePiece message, whose field 1 is the piece string; their order is the token id
// (NeMo's ids_to_tokens). Protobuf wire format read by hand: varints and length-delimited fields.
import { NemoFormatError } from './file-range.js';

const MAX_PIECES = 1 << 20;

class Reader {
  at = 0;
  constructor(private readonly bytes: Uint8Array, readonly end = bytes.length) {}

  varint(): number {
    let value = 0;
    for (let shift = 0; shift < 53; shift += 7) {
      if (this.at >= this.end) throw new NemoFormatError('tokenizer model: cut short (not a SentencePiece model)');
      const b = this.bytes[this.at++];
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new NemoFormatError('tokenizer model: a varint too long (not a SentencePiece model)');
  }

  /** Skips a field of `wireType`; returns [start, end) of a length-delimited one. */
  field(wireType: number): [number, number] {
    switch (wireType) {
      case 0: this.varint(); return [this.at, this.at];
      case 1: this.at += 8; break;
      case 5: this.at += 4; break;
      case 2: {
        const length = this.varint();
        const start = this.at;
        this.at += length;
        if (this.at > this.end) throw new NemoFormatError('tokenizer model: a field past its end (not a SentencePiece model)');
        return [start, this.at];
      }
      default: throw new NemoFormatError(`tokenizer model: wire type ${wireType} (not a SentencePiece model)`);
    }
    if (this.at > this.end) throw new NemoFormatError('tokenizer model: cut short');
    return [this.at, this.at];
  }
}

export function sentencePiecePieces(model: Uint8Array): string[] {
  const text = new TextDecoder('utf-8', { fatal: true });
  const pieces: string[] = [];
  const outer = new Reader(model);
  while (outer.at < outer.end) {
    const tag = outer.varint();
    const [start, end] = outer.field(tag & 7);
    if (tag >>> 3 !== 1 || (tag & 7) !== 2) continue;
    const inner = new Reader(model, end);
    inner.at = start;
    let piece: string | undefined;
    while (inner.at < inner.end) {
      const innerTag = inner.varint();
      const [s, e] = inner.field(innerTag & 7);
      if (innerTag >>> 3 === 1 && (innerTag & 7) === 2) piece = text.decode(model.subarray(s, e));
    }
    if (piece === undefined) throw new NemoFormatError(`tokenizer model: piece ${pieces.length} has no text`);
    pieces.push(piece);
    if (pieces.length > MAX_PIECES) throw new NemoFormatError('tokenizer model: more pieces than any vocabulary');
  }
  if (pieces.length === 0) throw new NemoFormatError('tokenizer model holds no pieces (not a SentencePiece model)');
  return pieces;
}
