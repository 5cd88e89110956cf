import type { ReactNode } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import styles from './activation.module.css';

/** A step's Back and Next (a submit button, so Enter in a field moves on too). */
export function StepActions({
  onBack,
  next,
}: {
  onBack?: () => void;
  next?: { label?: string; isDisabled: boolean; isLoading?: boolean };
}) {
  return (
    <div className={styles.actions}>
      {onBack && (
        <Button variant="secondary" onClick={onBack}>
          Back
        </Button>
      )}
      {next && (
        <Button type="submit" disabled={next.isDisabled} isLoading={next.isLoading ?? false}>
          {next.label ?? 'Next'}
        </Button>
      )}
    </div>
  );
}

/** The link-styled button that opens the "where do I find my code" help. */
export function HelpLink({ onHelp, children }: { onHelp: () => void; children: ReactNode }) {
  return (
    <button type="button" className={styles.linkButton} onClick={onHelp}>
      {children}
    </button>
  );
}
