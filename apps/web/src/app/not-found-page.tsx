import { Link } from '../lib/router/index.ts';
import { paths } from '../config/paths.ts';

/** Any path not in the route table. */
export function NotFoundPage() {
  return (
    <>
      <p>Sorry, the page you are looking for does not exist.</p>
      <p>
        <Link to={paths.login.href()}>Go to the home page</Link>
      </p>
    </>
  );
}
