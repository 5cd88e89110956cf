import { Link } from '../../lib/router/index.ts';
import styles from './brand-link.module.css';

/** The small logo and product name at the top of the sidebar and of the mobile bar. */
export function BrandLink({ to }: { to: string }) {
  return (
    <Link to={to} className={styles.brand}>
      <img src="/logo.svg" alt="" width={36} height={36} className={styles.mark} />
      <span>Farmcam Portal</span>
    </Link>
  );
}
