// A destructive action that asks first, in place: the button turns into the
// question with "confirm" and "keep" buttons, focus goes to the confirm
// button, and Esc or "keep" goes back (the focus with it, to the first
// button). After a confirmed action the caller says where the focus goes
// (afterConfirm): the button it was on is gone, and the focus must not fall
// to <body>. No modal dialog (nothing to trap focus in, nothing a screen
// reader has to find).
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Button } from './Button.js';

export interface ConfirmButtonProps {
  /** The button's text ("Delete"). */
  label: string;
  /** Its accessible name when the text alone is ambiguous ("Delete meeting.wav from the history"). */
  ariaLabel?: string;
  /** What is asked ("Delete this entry? This cannot be undone."). */
  question: string;
  /** The confirming button's text ("Delete entry"). */
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  disabled?: boolean;
  testId?: string;
  /** Where the focus goes once the action is done (its element is often gone with what it deleted). */
  afterConfirm?: () => void;
}

export function ConfirmButton({ label, ariaLabel, question, confirmLabel, onConfirm, disabled, testId, afterConfirm }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const [refocus, setRefocus] = useState(false);
  useEffect(() => {
    if (!refocus || asking) return;
    setRefocus(false);
    trigger.current?.focus();
  }, [refocus, asking]);
  if (!asking) {
    return (
      <Button ref={trigger} variant="quiet" onClick={() => setAsking(true)} disabled={disabled} aria-label={ariaLabel} data-testid={testId}>
        {label}
      </Button>
    );
  }
  const keep = () => {
    setAsking(false);
    setRefocus(true);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      keep();
    }
  };
  return (
    <span className="confirm" role="group" aria-label={question} onKeyDown={onKey} data-testid={testId ? `${testId}-confirm` : undefined}>
      <span className="confirm-question">{question}</span>
      <Button
        variant="danger"
        autoFocus
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
          if (afterConfirm) afterConfirm();
          else setRefocus(true);
        }}
      >
        {confirmLabel}
      </Button>
      <Button variant="quiet" onClick={keep} disabled={busy}>
        Keep
      </Button>
    </span>
  );
}
