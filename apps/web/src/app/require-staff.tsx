import { Navigate, Outlet } from '../lib/router/index.ts';
import { Loader } from '../components/ui/spinner.tsx';
import { paths } from '../config/paths.ts';
import { errorMessage } from '../lib/api-client.ts';
import { useAuthState } from '../lib/auth-store.ts';
import { isStaffRole, useCurrentUser } from '../lib/current-user.ts';

/** The staff area needs a staff (team or admin) session; anyone else goes to the login page. */
export function RequireStaff() {
  const { token, staffToken } = useAuthState();
  if (token === null) return <Navigate to={paths.login.href()} replace />;
  // While impersonating, the session is the customer's; the banner above offers the way back.
  if (staffToken !== null) {
    return <p>You are viewing a customer’s portal. Choose “Back to staff” to return.</p>;
  }
  return <StaffRoleCheck />;
}

function StaffRoleCheck() {
  const currentUser = useCurrentUser();
  if (currentUser.isPending) return <Loader label="Checking your access…" />;
  if (currentUser.isError) {
    return <p role="alert">{errorMessage(currentUser.error, 'Could not check your access')}</p>;
  }
  if (!isStaffRole(currentUser.data.role)) return <Navigate to={paths.login.href()} replace />;
  return <Outlet />;
}
