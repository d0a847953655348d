// Custom vocabulary: the phrase list the engine boosts while decoding
// (native/engine/model/phrase_boost.h), its text-file format and the words it never
// boosts. Pure: the CLI, main and the Settings view share it.
//
// File format: one phrase per line, optionally followed by a TAB and a positive
// weight ("Parakeet Desktop\t2"); blank lines are skipped.
import { SPOKEN_COMMANDS } from './text-transform.js';

export interface VocabularyPhrase {
  phrase: string;
  /** Bonus scale: 1 = the default bonus; the engine bounds it per token and per phrase. */
  weight: number;
}

/** The engine's limit (kMaxVocabularyPhrases). */
export const MAX_VOCABULARY_PHRASES = 1000;

/** What Settings accepts per phrase (the engine bounds the bonus itself; a weight past 1.5 adds nothing there). */
export const VOCABULARY_LIMITS = { maxPhraseChars: 200, minWeight: 0.1, maxWeight: 10 } as const;

/** What the engine must never boost: the spoken-punctuation commands (a bonus would make "comma" replace ordinary words). */
export const NEVER_BOOSTED: readonly string[] = SPOKEN_COMMANDS.map((c) => c.phrase);

export class VocabularyFileError extends Error {}

/** Parses the vocabulary file format; a bad line throws VocabularyFileError naming the line and what to write instead. */
export function parseVocabularyFile(text: string): VocabularyPhrase[] {
  const phrases: VocabularyPhrase[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const tab = line.indexOf('\t');
    const phrase = (tab < 0 ? line : line.slice(0, tab)).trim();
    let weight = 1;
    if (tab >= 0) {
      const field = line.slice(tab + 1).trim();
      weight = Number(field);
      if (field === '' || !Number.isFinite(weight) || weight <= 0) {
        throw new VocabularyFileError(`line ${index + 1}: the weight after the TAB is "${field}"; write a positive number (1 = the default bonus)`);
      }
    }
    if (phrase === '') throw new VocabularyFileError(`line ${index + 1}: a weight without a phrase; write the phrase before the TAB`);
    phrases.push({ phrase, weight });
  }
  if (phrases.length > MAX_VOCABULARY_PHRASES) {
    throw new VocabularyFileError(`the vocabulary has ${phrases.length} phrases; at most ${MAX_VOCABULARY_PHRASES} are supported: remove the ones you need least`);
  }
  return phrases;
}

/** The file format of a phrase list (weight 1 is left implicit). */
export function formatVocabularyFile(phrases: readonly VocabularyPhrase[]): string {
  return phrases.map((p) => (p.weight === 1 ? p.phrase : `${p.phrase}\t${p.weight}`)).join('\n') + (phrases.length > 0 ? '\n' : '');
}

/**
 * The transcribe options for a phrase list: none at all for an empty list (decoding exactly as
 * without a vocabulary), else the phrases with the never-boosted commands.
 */
export function vocabularyOptions(phrases: readonly VocabularyPhrase[]): { vocabulary?: VocabularyPhrase[]; neverBoost?: string[] } {
  if (phrases.length === 0) return {};
  return { vocabulary: [...phrases], neverBoost: [...NEVER_BOOSTED] };
}
