import { Link } from '../lib/router/index.ts';
import { Card } from '../components/ui/card.tsx';
import { paths } from '../config/paths.ts';
import { ActivatePage } from '../features/activation/components/activate-page.tsx';
import { CoverageCheck } from '../features/coverage/components/coverage-check.tsx';
import { useAccess } from '../lib/access.ts';

/**
 * The activation wizard with the coverage feature's optional signal check in its region step.
 * Features do not import each other, so the app composes the two here. A team member whose role
 * may not activate SIMs (user-data's access.can) is told who can, rather than sent through a
 * wizard the server would refuse at the end (decision 093).
 */
export function ActivateRoute() {
  const access = useAccess();
  if (access && !access.can.activateSims) {
    return (
      <Card>
        <p>
          New SIMs on this account are activated by its owner, {access.accountEmail}. Please ask
          them to add the camera.
        </p>
        <p>
          <Link to={paths.dashboard.href()}>Back to your cameras</Link>
        </p>
      </Card>
    );
  }
  return <ActivatePage coverageCheck={CoverageCheck} />;
}
