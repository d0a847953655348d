// Copies text to the clipboard and says so for a moment; when the clipboard
// refuses (no permission, insecure context) a banner says how to copy by hand.
import { useEffect, useRef, useState } from 'react';
import * as actions from '../store/actions.js';
import { Button, type ButtonProps } from './Button.js';

export interface CopyButtonProps extends Omit<ButtonProps, 'onClick' | 'children'> {
  /**
   * Read at click time, so a long text is only built when it is copied. May be asynchronous (a report fetched
   * from main): Chromium keeps the click's user activation for the clipboard write for a few seconds. Null:
   * nothing to copy (the fetch failed and said so).
   */
  getText: () => string | null | Promise<string | null>;
  label?: string;
}

export function CopyButton({ getText, label = 'Copy text', ...rest }: CopyButtonProps) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  const copy = async () => {
    try {
      const text = await getText();
      if (text === null) return;
      await navigator.clipboard.writeText(text);
      setCopied(true);
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(false), 1500);
    } catch {
      actions.notify({
        level: 'warning',
        code: 'CLIPBOARD',
        message: 'Could not copy to the clipboard.',
        action: 'Select the text and press Ctrl+C instead.',
      });
    }
  };
  return (
    <Button {...rest} onClick={() => void copy()}>
      {copied ? 'Copied' : label}
    </Button>
  );
}
