import { ActivatePage } from '../features/activation/components/activate-page.tsx';
import { CoverageCheck } from '../features/coverage/components/coverage-check.tsx';

/**
 * The activation wizard with the coverage feature's optional signal check in its region step.
 * Features do not import each other, so the app composes the two here.
 */
export function ActivateRoute() {
  return <ActivatePage coverageCheck={CoverageCheck} />;
}
