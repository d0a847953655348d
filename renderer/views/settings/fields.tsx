// The settings form's building blocks: a labelled field with its error,
// warning and hint (from the form's Messages), a checkbox toggle, and a number
// input described by its messages.
import { createContext, useContext, type ReactNode } from 'react';
import type { Settings } from '../../../app/ipc/contract.js';
import type { FieldId, FieldMessages } from './form-check.js';

/** What every section gets: the draft and the way to change it. */
export interface SectionProps {
  draft: Settings;
  update: (next: Partial<Settings>) => void;
}

/** The form's messages per field: errors (not saved) and warnings (saved, but check). */
export const Messages = createContext<{ errors: FieldMessages; warnings: FieldMessages }>({ errors: {}, warnings: {} });

/** The ids an input is described by: its error or warning (first), then its hint. */
export function describedBy(id: string, msgs: { errors: FieldMessages; warnings: FieldMessages }, hint: boolean): string | undefined {
  const ids = [];
  if (msgs.errors[id as FieldId]) ids.push(`${id}-error`);
  else if (msgs.warnings[id as FieldId]) ids.push(`${id}-warning`);
  if (hint) ids.push(`${id}-hint`);
  return ids.length ? ids.join(' ') : undefined;
}

export function Field({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ReactNode }) {
  const msgs = useContext(Messages);
  const error = msgs.errors[id as FieldId];
  const warning = msgs.warnings[id as FieldId];
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {error ? (
        <p className="field-error" id={`${id}-error`} data-testid={`${id}-error`}>
          {error}
        </p>
      ) : warning ? (
        <p className="field-warning" id={`${id}-warning`} data-testid={`${id}-warning`}>
          {warning}
        </p>
      ) : null}
      {hint ? (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

export function Toggle({ id, label, checked, onChange }: { id: string; label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <div className="toggle">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

export function NumberInput({ id, value, limit, step, onChange, hint = true }: {
  id: FieldId; value: number; limit: { min: number; max: number }; step: number; onChange: (v: number) => void; hint?: boolean;
}) {
  const msgs = useContext(Messages);
  return (
    <input
      id={id}
      type="number"
      value={Number.isFinite(value) ? value : ''}
      min={limit.min}
      max={limit.max}
      step={step}
      aria-invalid={msgs.errors[id] ? true : undefined}
      aria-describedby={describedBy(id, msgs, hint)}
      onChange={(e) => onChange(e.target.valueAsNumber)}
    />
  );
}
