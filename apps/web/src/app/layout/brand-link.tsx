import { Link } from '../../lib/router/index.ts';
import styles from './brand-link.module.css';

/**
 * The logo of public/logo.svg drawn in the page itself: the frame is complete with the HTML that
 * carries it, where an image waited for a request of its own, on one bar beside the page's first
 * files (decision 175). The favicon and the larger logos stay the file.
 */
function LogoMark() {
  return (
    <svg
      viewBox="0 0 64 64"
      width={36}
      height={36}
      className={styles.mark}
      aria-hidden="true"
      focusable="false"
    >
      <rect width="64" height="64" rx="14" fill="#2f6b3a" />
      <path
        d="M0 47c11-8 22-10 34-6s21 3 30-3v12a14 14 0 0 1-14 14H14A14 14 0 0 1 0 50z"
        fill="#8cc63f"
      />
      <path
        d="M0 54c12-5 24-6 36-3s20 2 28-2v1a14 14 0 0 1-14 14H14A14 14 0 0 1 0 50z"
        fill="#4f9a3b"
      />
      <rect x="13" y="18" width="32" height="22" rx="5" fill="#fff" />
      <path d="M45 25l9-5v18l-9-5z" fill="#fff" />
      <circle cx="29" cy="29" r="7.5" fill="#2f6b3a" />
      <circle cx="29" cy="29" r="3.5" fill="#fff" />
      <circle cx="19" cy="23" r="1.8" fill="#d93a2b" />
    </svg>
  );
}

/** The small logo and product name at the top of the sidebar and of the mobile bar. */
export function BrandLink({ to }: { to: string }) {
  return (
    <Link to={to} className={styles.brand}>
      <LogoMark />
      <span>Farmcam Portal</span>
    </Link>
  );
}
