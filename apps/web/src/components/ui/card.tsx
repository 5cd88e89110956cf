import type { ReactNode } from 'react';
import styles from './card.module.css';
import { classNames } from './class-names.ts';

export interface CardProps {
  /** Heading of the card, an h2: cards sit directly under the page title. */
  title?: ReactNode;
  children: ReactNode;
  className?: string;
}

export function Card({ title, children, className }: CardProps) {
  return (
    <section className={classNames(styles.card, className)}>
      {title && <h2 className={styles.title}>{title}</h2>}
      {children}
    </section>
  );
}
