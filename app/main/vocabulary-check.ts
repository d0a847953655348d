// vocabulary:check: Settings asks, per phrase, whether the active model can spell it (its embedded
// SentencePiece model when the file has one, else its piece list) and the pieces it would boost.
import { basename } from 'node:path';
import type { VocabularyCheck } from '../ipc/contract.js';
import type { ModelInfo, PhraseCheck } from '../../native/index.js';
import { NEVER_BOOSTED, type VocabularyPhrase } from '../shared/vocabulary.js';

/** What the check needs from the engine (EngineHost). */
export interface VocabularyChecker {
  readonly loadedModel: ModelInfo | null;
  checkVocabulary(phrases: VocabularyPhrase[], neverBoost: string[]): Promise<PhraseCheck[]>;
}

export async function checkVocabulary(engine: VocabularyChecker, phrases: VocabularyPhrase[]): Promise<VocabularyCheck> {
  const model = engine.loadedModel;
  if (!model) return { modelName: null, exact: false, phrases: [] };
  const modelName = model.name || basename(model.path);
  if (phrases.length === 0) return { modelName, exact: model.sentencePieceBytes > 0, phrases: [] };
  const checks = await engine.checkVocabulary(phrases, [...NEVER_BOOSTED]);
  return {
    modelName,
    exact: checks.some((c) => c.exact),
    phrases: checks.map((c) => ({ phrase: c.phrase, ...(c.reason ? { reason: c.reason } : {}), pieces: c.spellings[0] ?? [] })),
  };
}
