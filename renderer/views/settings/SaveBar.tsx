// The Settings form's Save bar, stuck to the bottom of the window while the form scrolls (issue 44 item 7):
// Save, Revert, the outcome, and — when fields hold a save back — their names as links that scroll to
// each field and put the focus in it, so the reason is never a page away from the button.
import { Button } from '../../components/Button.js';
import { FIELD_NAMES, type FieldId } from './form-check.js';
import type { Outcome } from './save-outcome.js';

export interface SaveBarProps {
  canSave: boolean;
  saving: boolean;
  unsaved: boolean;
  outcome: Outcome;
  /** Fields with an error (their edits are not sent). */
  held: readonly FieldId[];
  onRevert: () => void;
}

/** The field's input (or, for a list such as the replacements, its first input). */
function focusField(id: FieldId): void {
  const target = document.getElementById(id);
  const input = target && target.matches('input, select, textarea') ? target : document.querySelector<HTMLElement>(`[aria-labelledby="${id}-label"] input`);
  const where = input ?? target ?? document.getElementById(`${id}-label`);
  where?.scrollIntoView({ block: 'center' });
  input?.focus();
}

export function SaveBar({ canSave, saving, unsaved, outcome, held, onRevert }: SaveBarProps) {
  return (
    <div className="settings-actions save-bar" data-testid="save-bar">
      <Button type="submit" variant="primary" disabled={!canSave || saving} aria-describedby={held.length ? 'save-held' : undefined}>
        {saving ? 'Saving…' : 'Save settings'}
      </Button>
      <Button variant="quiet" disabled={!unsaved || saving} onClick={onRevert}>
        Revert
      </Button>
      <p className={`save-outcome save-${outcome?.kind ?? 'none'}`} role="status" data-testid="save-outcome">
        {outcome ? outcome.text : unsaved ? 'Unsaved changes.' : ''}
      </p>
      {held.length ? (
        <p className="save-held warn-text" id="save-held" data-testid="save-held">
          {held.length === 1 ? 'Fix this field to save it: ' : `Fix these ${held.length} fields to save them: `}
          {held.map((id, i) => (
            <span key={id}>
              {i > 0 ? ', ' : null}
              <button type="button" className="link" onClick={() => focusField(id)} data-field={id}>
                {FIELD_NAMES[id]}
              </button>
            </span>
          ))}
          .
        </p>
      ) : null}
    </div>
  );
}
