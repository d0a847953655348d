// Settings → Vocabulary: per phrase, whether the active model can spell it and the pieces the decoder
// will favour (vocabulary:check, answered by the engine with the model's own tokenizer when the file
// embeds one). Asked again a moment after the list stops changing.
import { useEffect, useState } from 'react';
import type { VocabularyCheck, VocabularyPhrase } from '../../app/ipc/contract.js';
import { checkVocabulary } from '../store/commands.js';

const SETTLE_MS = 300;

export function VocabularyCheckList({ phrases }: { phrases: VocabularyPhrase[] }) {
  const [check, setCheck] = useState<VocabularyCheck | null>(null);
  useEffect(() => {
    if (phrases.length === 0) {
      setCheck(null);
      return undefined;
    }
    let current = true;
    const timer = setTimeout(() => {
      void checkVocabulary(phrases).then((answer) => {
        if (current) setCheck(answer);
      });
    }, SETTLE_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [phrases]);
  if (!check || phrases.length === 0) return null;
  if (check.modelName === null) {
    return <p className="field-hint" data-testid="set-vocabulary-check-summary">Load a model to see which phrases it can spell.</p>;
  }
  const usable = check.phrases.filter((p) => p.reason === undefined).length;
  return (
    <div className="vocabulary-check">
      <p className="field-hint" data-testid="set-vocabulary-check-summary">
        {usable} of {check.phrases.length} phrases tokenize with {check.modelName} (
        {check.exact ? 'its own SentencePiece tokenizer' : 'its piece list; the exact split is one of those shown'}).
      </p>
      <ul className="vocabulary-check-list" data-testid="set-vocabulary-check">
        {check.phrases.map((p, i) => (
          <li key={i} data-testid="vocabulary-phrase-check" data-usable={p.reason === undefined ? 'yes' : 'no'}>
            <span className="vocabulary-check-phrase">{p.phrase}</span>{' '}
            {p.reason === undefined
              ? <span className="field-hint">{p.pieces.join(' ')}</span>
              : <span className="field-error">not used: {p.reason}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
