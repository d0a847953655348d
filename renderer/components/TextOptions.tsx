// Settings card for the dictation text options (app/shared/text-transform.ts):
// spoken punctuation with the list of what can be said, the replacement list
// (spoken words → written text) and whether inserted text ends with a space.
// The replacement list is checked as a whole (form-check.ts): its error sits
// under the list and the list is not saved until it is fixed.
import type { Replacement, TextSettings } from '../../app/ipc/contract.js';
import { REPLACEMENT_LIMITS, SPOKEN_COMMANDS } from '../../app/shared/text-transform.js';
import { Button } from './Button.js';

/** How a command's output reads in the list (a line break has no visible glyph). */
function shownOutput(output: string): string {
  if (output === '\n') return 'line break';
  if (output === '\n\n') return 'blank line (new paragraph)';
  return output;
}

export function TextOptionsCard({ text, error, onText }: {
  text: TextSettings;
  error: string | null;
  onText: (next: Partial<TextSettings>) => void;
}) {
  const setRow = (index: number, row: Partial<Replacement>) =>
    onText({ replacements: text.replacements.map((r, i) => (i === index ? { ...r, ...row } : r)) });
  return (
    <fieldset className="card">
      <legend>Dictation text</legend>
      <div className="toggle">
        <input id="set-spoken-punct" type="checkbox" checked={text.spokenPunctuation} onChange={(e) => onText({ spokenPunctuation: e.target.checked })} />
        <label htmlFor="set-spoken-punct">Spoken punctuation and line breaks (English)</label>
      </div>
      <details className="field-hint">
        <summary>What you can say</summary>
        <table className="commands-table" data-testid="spoken-commands">
          <thead>
            <tr>
              <th scope="col">Say</th>
              <th scope="col">Writes</th>
            </tr>
          </thead>
          <tbody>
            {SPOKEN_COMMANDS.map((c) => (
              <tr key={c.phrase}>
                <td>“{c.phrase}”</td>
                <td className="mono">{shownOutput(c.output)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>

      <div className={`field${error ? ' field-invalid' : ''}`}>
        <span className="field-label" id="set-replacements-label">Replacements (whole words, any case)</span>
        {text.replacements.length === 0 ? <p className="field-hint">None yet. Example: “parakeet desktop” → “Parakeet Desktop”.</p> : null}
        <ul className="replacement-list" aria-labelledby="set-replacements-label" data-testid="replacements">
          {text.replacements.map((r, i) => (
            <li key={i} className="inline-form-row">
              <label className="visually-hidden" htmlFor={`set-repl-from-${i}`}>Spoken words {i + 1}</label>
              <input id={`set-repl-from-${i}`} type="text" value={r.from} placeholder="spoken words" maxLength={REPLACEMENT_LIMITS.maxFromChars}
                aria-invalid={error ? true : undefined} aria-describedby={error ? 'set-replacements-error' : undefined}
                onChange={(e) => setRow(i, { from: e.target.value })} />
              <span aria-hidden="true">→</span>
              <label className="visually-hidden" htmlFor={`set-repl-to-${i}`}>Written text {i + 1}</label>
              <input id={`set-repl-to-${i}`} type="text" value={r.to} placeholder="written text (empty: removed)" maxLength={REPLACEMENT_LIMITS.maxToChars}
                onChange={(e) => setRow(i, { to: e.target.value })} />
              <Button variant="quiet" onClick={() => onText({ replacements: text.replacements.filter((_, k) => k !== i) })}>
                Remove {i + 1}
              </Button>
            </li>
          ))}
        </ul>
        <Button disabled={text.replacements.length >= REPLACEMENT_LIMITS.maxEntries} onClick={() => onText({ replacements: [...text.replacements, { from: '', to: '' }] })}>
          Add a replacement
        </Button>
        {error ? (
          <p className="field-error" id="set-replacements-error" data-testid="set-replacements-error">
            {error}
          </p>
        ) : null}
        <p className="field-hint">Applied to the text of each sentence before it is shown, inserted and kept in History, before spoken punctuation.</p>
      </div>

      <div className="toggle">
        <input id="set-trailing-space" type="checkbox" checked={text.trailingSpace} onChange={(e) => onText({ trailingSpace: e.target.checked })} />
        <label htmlFor="set-trailing-space">End inserted text with a space (instead of starting the next sentence with one)</label>
      </div>
    </fieldset>
  );
}
