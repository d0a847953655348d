// A button that always has an accessible name and a visible focus ring
// (styles.css). Native <button>: Space and Enter work without extra code.
import type { ButtonHTMLAttributes, ReactNode, Ref } from 'react';

type Variant = 'primary' | 'secondary' | 'danger' | 'quiet';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: Variant;
  children: ReactNode;
  /** React 19 passes ref as a prop: callers that move the focus back to a button need it. */
  ref?: Ref<HTMLButtonElement>;
}

export function Button({ variant = 'secondary', className, type = 'button', children, ...rest }: ButtonProps) {
  return (
    <button type={type} className={`btn btn-${variant}${className ? ` ${className}` : ''}`} {...rest}>
      {children}
    </button>
  );
}
