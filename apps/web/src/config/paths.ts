/**
 * Every route of the portal (docs/requirements.md#routes): `pattern` for the router, `href` to link.
 * Features link through these builders so a route can move without a hunt for string literals.
 */
const segment = encodeURIComponent;

function withQuery(path: string, query: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') search.set(key, value);
  }
  const queryString = search.toString();
  return queryString === '' ? path : `${path}?${queryString}`;
}

export type Region = 'uk' | 'ie';
export type CodeType = '4-digits' | '20-digits';

export interface ActivateQuery {
  email?: string;
  codeType?: CodeType;
  code?: string;
  location?: Region;
  /** The postcode a coverage check came from ("Activate a camera here"). */
  postcode?: string;
}

export const paths = {
  login: { pattern: '/', href: () => '/' },
  magicLink: {
    pattern: '/login/:token',
    href: (token: string) => `/login/${segment(token)}`,
  },
  teamLogin: { pattern: '/team-login', href: () => '/team-login' },
  staffSetPassword: {
    pattern: '/team-login/set-password/:token',
    href: (token: string) => `/team-login/set-password/${segment(token)}`,
  },
  staff: { pattern: '/staff', href: () => '/staff' },
  postcode: { pattern: '/postcode', href: () => '/postcode' },
  postcodeResult: {
    pattern: '/postcode/:postcode',
    href: (postcode: string) => `/postcode/${segment(postcode)}`,
  },
  orderConfirmation: {
    pattern: '/order-confirmation',
    href: (query: { order?: string; product?: string } = {}) =>
      withQuery('/order-confirmation', query),
  },
  dashboard: {
    pattern: '/dashboard',
    href: (options: { isRefresh?: boolean } = {}) =>
      withQuery('/dashboard', { refresh: options.isRefresh ? 'true' : undefined }),
  },
  activate: {
    pattern: '/activate',
    href: (query: ActivateQuery = {}) =>
      withQuery('/activate', {
        email: query.email,
        code_type: query.codeType,
        code: query.code,
        location: query.location,
        postcode: query.postcode,
      }),
  },
  livestreaming: { pattern: '/livestreaming', href: () => '/livestreaming' },
  livestreamingSetup: {
    pattern: '/livestreaming/setup',
    /** With a camera, its row is chosen already (editing its livestream). */
    href: (query: { cameraId?: string } = {}) =>
      withQuery('/livestreaming/setup', { camera: query.cameraId }),
  },
  livestreamingManage: {
    pattern: '/livestreaming/manage/:cameraId',
    /** One camera's livestream: schedule, switch, code, public links and views (decision 121). */
    href: (cameraId: string) => `/livestreaming/manage/${encodeURIComponent(cameraId)}`,
  },
  camera: {
    pattern: '/camera/:cameraId',
    /** cameraId is the SIM ICCID; `watch` starts live view at once (the dashboard's Watch live). */
    href: (cameraId: string, options: { watch?: boolean } = {}) =>
      withQuery(`/camera/${segment(cameraId)}`, { watch: options.watch ? 'live' : undefined }),
  },
  subscription: {
    pattern: '/subscription/:stripeId',
    /** stripeId is the billing customer id of one camera. */
    href: (stripeId: string) => `/subscription/${segment(stripeId)}`,
  },
  invoices: {
    pattern: '/invoices/:stripeId',
    href: (stripeId: string) => `/invoices/${segment(stripeId)}`,
  },
  team: { pattern: '/team', href: () => '/team' },
  /** Each person's own alert channels (decision 122). */
  notifications: { pattern: '/notifications', href: () => '/notifications' },
  activity: { pattern: '/activity', href: () => '/activity' },
  /** The farm's billing, every camera's bills in one place (decision 127). */
  billing: { pattern: '/billing', href: () => '/billing' },
  /** The e-mailed invitation to join an account's team (docs/decisions/093). */
  invitation: {
    pattern: '/invitation',
    href: (token: string) => withQuery('/invitation', { token }),
  },
  pricing: {
    pattern: '/pricing/:iccid/:customerId',
    href: (iccid: string, customerId: string, query: { location?: Region } = {}) =>
      withQuery(`/pricing/${segment(iccid)}/${segment(customerId)}`, query),
  },
} as const;

export const companyWebsiteUrl = 'https://www.example.com';
