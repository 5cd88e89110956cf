import { Navigate, Outlet } from '../lib/router/index.ts';
import { paths } from '../config/paths.ts';
import { useIsSignedIn } from '../lib/auth-store.ts';

/** The framed routes need a session token (docs/requirements.md#screens); without one, back to the login page. */
export function RequireSession() {
  const isSignedIn = useIsSignedIn();
  return isSignedIn ? <Outlet /> : <Navigate to={paths.login.href()} replace />;
}
