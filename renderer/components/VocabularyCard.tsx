// Settings card for the custom vocabulary (app/shared/vocabulary.ts): the
// phrase list in its text-file format (one phrase a line, optionally a TAB and
// a weight), edited in place, imported from or exported to a text file, with a
// count. A list that does not parse stays in the box with the reason under it
// and is not taken into the draft until it is fixed.
import { useEffect, useState, type ChangeEvent } from 'react';
import type { TextSettings } from '../../app/ipc/contract.js';
import { formatVocabularyFile, MAX_VOCABULARY_PHRASES, parseVocabularyFile, VocabularyFileError } from '../../app/shared/vocabulary.js';
import { saveTextFile } from '../download.js';
import { Button } from './Button.js';
import { VocabularyCheckList } from './VocabularyCheckList.js';

export function VocabularyCard({ text, onText }: { text: TextSettings; onText: (next: Partial<TextSettings>) => void }) {
  const [source, setSource] = useState(() => formatVocabularyFile(text.vocabulary));
  const [problem, setProblem] = useState<string | null>(null);
  // The draft changed from outside (Revert, a save from another window): show it, unless the box already says it.
  useEffect(() => {
    const wanted = formatVocabularyFile(text.vocabulary);
    setSource((shown) => {
      try {
        if (formatVocabularyFile(parseVocabularyFile(shown)) === wanted) return shown;
      } catch {
        // an unparsable box is replaced by the draft below
      }
      setProblem(null);
      return wanted;
    });
  }, [text.vocabulary]);
  const take = (value: string) => {
    setSource(value);
    try {
      onText({ vocabulary: parseVocabularyFile(value) });
      setProblem(null);
    } catch (error) {
      if (!(error instanceof VocabularyFileError)) throw error;
      setProblem(error.message);
    }
  };
  const importFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (file) take(await file.text());
  };
  return (
    <fieldset className="card">
      <legend>Vocabulary</legend>
      <div className={`field${problem ? ' field-invalid' : ''}`}>
        <label className="field-label" htmlFor="set-vocabulary">Phrases the recognizer favours (names, jargon, numbers)</label>
        <textarea id="set-vocabulary" rows={6} value={source} spellCheck={false} data-testid="set-vocabulary"
          placeholder={'Parakeet Desktop\nKubernetes\t2'} aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'set-vocabulary-error' : 'set-vocabulary-count'} onChange={(e) => take(e.target.value)} />
        <p className="field-hint" id="set-vocabulary-count" data-testid="set-vocabulary-count">
          {text.vocabulary.length} of at most {MAX_VOCABULARY_PHRASES} phrases. One a line; a TAB and a number after a phrase
          weighs it (1 = default). A phrase is only favoured where it was heard, never out of silence; spoken punctuation
          commands are never favoured, and a phrase with characters the model cannot write is skipped.
        </p>
        {problem ? (
          <p className="field-error" id="set-vocabulary-error" data-testid="set-vocabulary-error">
            {problem}
          </p>
        ) : null}
        <VocabularyCheckList phrases={text.vocabulary} />
        <div className="inline-form-row">
          <label className="btn btn-secondary" htmlFor="set-vocabulary-import">Import a text file…</label>
          <input id="set-vocabulary-import" className="visually-hidden" type="file" accept=".txt,text/plain" onChange={(e) => void importFile(e)} />
          <Button variant="quiet" disabled={text.vocabulary.length === 0}
            onClick={() => saveTextFile('vocabulary.txt', formatVocabularyFile(text.vocabulary), 'text/plain')}>
            Export
          </Button>
        </div>
      </div>
    </fieldset>
  );
}
