import type { AccountAccess } from '@farmcam/contract';
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { StrictMode } from 'react';
import { createMemoryRouter, RouterProvider } from '../lib/router/index.ts';
import type { RouteObject } from '../lib/router/index.ts';
import { vi } from 'vitest';
import { routes as appRoutes } from '../app/router.tsx';
import { queryClient } from '../lib/query-client.ts';

/**
 * Renders routes (the app's own by default) at a path, in StrictMode as in the browser, with the
 * app's query client: it is the one the auth store empties on every change of session.
 */
export function renderRoute(path: string, routes: RouteObject[] = appRoutes) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const view = render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  );
  return { router, ...view };
}

export function jsonResponse(status: number, body?: unknown, headers: HeadersInit = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

type FetchHandler = (url: URL, init: RequestInit) => Response | Promise<Response>;

/** Replaces fetch for one test; the handler sees the URL (relative to the page) and init. */
export function mockFetch(handler: FetchHandler) {
  const fetchMock = vi.fn((input: RequestInfo | URL, init: RequestInit = {}) =>
    Promise.resolve(handler(new URL(String(input), window.location.origin), init)),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

/** The headers a mocked fetch was called with, as a Headers object. */
export function requestHeaders(init: RequestInit | undefined): Headers {
  return new Headers(init?.headers);
}

/** A signed-in customer with no cameras yet: the answers the framed pages ask for first. */
export function customerWithoutCameras(url: URL, user: unknown): Response {
  if (url.pathname === '/api/cameras/plansV2') {
    return jsonResponse(200, { overallSummary: { overallPercentageLeft: 100 }, cameras: [] });
  }
  return jsonResponse(200, { data: user });
}

/** user-data's `access` of an account's owner, who may do everything (as the server answers). */
export function ownerAccess(email = 'farmer@example.com'): AccountAccess {
  return {
    role: 'owner',
    accountEmail: email,
    personEmail: email,
    allCameras: true,
    cameraIds: [],
    accessUntil: null,
    can: {
      manageCameras: true,
      manageBilling: true,
      activateSims: true,
      manageTeam: true,
      viewActivity: true,
    },
  };
}

/** user-data's `access` of a member (abilities as the server gives the role, decision 091). */
export function memberAccess(
  role: 'manager' | 'viewer',
  overrides: Partial<AccountAccess> = {},
): AccountAccess {
  return {
    role,
    accountEmail: 'farmer@example.com',
    personEmail: role === 'manager' ? 'manager@example.com' : 'vet@example.com',
    allCameras: role === 'manager',
    cameraIds: [],
    accessUntil: null,
    can: {
      manageCameras: role === 'manager',
      manageBilling: false,
      activateSims: false,
      manageTeam: false,
      viewActivity: false,
    },
    ...overrides,
  };
}

/**
 * Answers GET /api/billing/account/{id} as the server does for a camera's billing account (Manage
 * plan and Invoices ask it first, decision 111): `cus_1` pays for "Fuel tank", SIM …1071. Returns
 * undefined for any other call, so a test's handler goes on.
 */
export function billingAccountAnswer(
  url: URL,
  overrides: Record<string, unknown> = {},
): Response | undefined {
  const match = /^\/api\/billing\/account\/([^/]+)$/.exec(url.pathname);
  if (!match) return undefined;
  if (match[1] !== 'cus_1')
    return jsonResponse(404, { code: 'NOT_FOUND', message: 'Billing account not found' });
  return jsonResponse(200, {
    customer_id: 'cus_1',
    camera: { iccid: '8944110000000001071', nickname: 'Fuel tank' },
    can_manage_plan: true,
    manage_plan_refusal: null,
    ...overrides,
  });
}
