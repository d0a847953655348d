// Text from token ids, spec §1.4 — NeMo SentencePieceTokenizer.ids_to_text → SentencePiece
// DecodeIds (non-legacy): control pieces vanish, <unk> renders as " ⁇ ", '▁' becomes a space and the
// leading '▁' of the first piece that produces text is removed.
//
// Note: SentencePiece removes the word-boundary marker of the *first visible piece* only; it does not
// trim the spaces of the " ⁇ " unk surface. So [<unk>, ▁well] → " ⁇  well" (as the spec's sentencepiece
// 0.1.97 check shows), not "⁇  well". Apart from a leading <unk> this equals the spec's steps 1–4.

export const WORD_BOUNDARY = '\u2581';
export const UNK_SURFACE = ' \u2047 ';
const CONTROL = new Set(['<s>', '</s>', '<pad>']);

export type PieceKind = 'text' | 'control' | 'special' | 'unk';

/**
 * control: <s>, </s>, <pad>; unk: <unk>; special: any other bracketed piece such as <EOU>, <EOB>,
 * <en-US> or byte pieces <0xNN> (dropped from text; EOU/EOB are events); text: everything else.
 */
export function pieceKind(piece: string): PieceKind {
  if (CONTROL.has(piece)) return 'control';
  if (piece === '<unk>') return 'unk';
  if (piece.length > 2 && piece.startsWith('<') && piece.endsWith('>')) return 'special';
  return 'text';
}

function pieceOf(pieces: readonly string[], id: number): string {
  if (!Number.isInteger(id) || id < 0 || id >= pieces.length) throw new RangeError(`detokenize: id ${id} out of range`);
  return pieces[id];
}

/** Per-id surfaces as SentencePiece decodes a sequence (empty for dropped pieces). */
export function decodeSurfaces(pieces: readonly string[], ids: readonly number[]): string[] {
  const out: string[] = [];
  let bos = true; // no visible text emitted yet
  for (const id of ids) {
    const piece = pieceOf(pieces, id);
    const kind = pieceKind(piece);
    let surface: string;
    if (kind === 'control' || kind === 'special') surface = '';
    else if (kind === 'unk') surface = UNK_SURFACE;
    else {
      const p = bos && piece.startsWith(WORD_BOUNDARY) ? piece.slice(WORD_BOUNDARY.length) : piece;
      surface = p.split(WORD_BOUNDARY).join(' ');
    }
    if (bos && surface.length > 0) bos = false;
    out.push(surface);
  }
  return out;
}

/** NeMo hypothesis text for a token id sequence (ids must be < V; blank is not a piece). */
export function detokenize(pieces: readonly string[], ids: readonly number[]): string {
  return decodeSurfaces(pieces, ids).join('');
}

/** NeMo decode_tokens_to_str([id]): the text of one token on its own (leading '▁' removed). */
export function tokenText(pieces: readonly string[], id: number): string {
  return detokenize(pieces, [id]);
}
