/** The portal's router (decision 126); the names are React Router's, for what the portal uses. */
export { createBrowserRouter, createMemoryRouter } from './router.ts';
export type { NavigateOptions, Router, RouterState } from './router.ts';
export type { Location, NavigationType, To } from './history.ts';
export type { LoaderFunction, Params, RouteObject, UIMatch } from './routes.ts';
export {
  Link,
  MemoryRouter,
  Navigate,
  NavLink,
  Outlet,
  RouterProvider,
  useLocation,
  useMatches,
  useNavigate,
  useNavigationType,
  useParams,
  useRouteError,
  useSearchParams,
} from './react.tsx';
