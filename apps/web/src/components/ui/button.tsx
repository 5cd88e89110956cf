import type { ButtonHTMLAttributes } from 'react';
import styles from './button.module.css';
import { classNames } from './class-names.ts';
import { Spinner } from './spinner.tsx';

export type ButtonVariant = 'primary' | 'secondary' | 'danger';

export interface ButtonStyleOptions {
  variant?: ButtonVariant;
  isFullWidth?: boolean;
}

/** The button look, for links that act as buttons (e.g. a router Link to the dashboard). */
export function buttonClassName({ variant = 'primary', isFullWidth = false }: ButtonStyleOptions) {
  return classNames(styles.button, styles[variant], isFullWidth && styles.fullWidth);
}

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement>, ButtonStyleOptions {
  /** Shows a spinner and blocks further clicks while an action runs. */
  isLoading?: boolean;
}

export function Button({
  variant,
  isFullWidth,
  isLoading = false,
  disabled,
  className,
  children,
  type = 'button',
  ...rest
}: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      className={classNames(buttonClassName({ variant, isFullWidth }), className)}
      disabled={disabled || isLoading}
      aria-busy={isLoading || undefined}
    >
      {isLoading && <Spinner size="sm" />}
      {children}
    </button>
  );
}
