/**
 * What a signed-in page opened by its address needs first, started by a small script in the
 * page's head before the app's own scripts have arrived (decision 118, "early start"): the page's
 * code chunk is preloaded and its first API answers are asked for at once. On one bar of signal
 * the app's entry takes about two seconds to arrive; these no longer wait behind it.
 *
 * Read at build time by prerender-plugin.ts, which writes the script with each page's chunk files;
 * the answers are taken, once, by the API client (lib/early-answers.ts). Only GETs a page makes on
 * its every first render belong here, exactly as it makes them (route-prefetch.ts starts the same
 * ones when the app itself navigates); `$1` is the path's first captured segment, as typed.
 */
import { earlyAnswersGlobal } from '../lib/early-answers.ts';

export interface EarlyStart {
  /** The page's path, anchored, as a regular expression's source. */
  path: string;
  /** The page component's module, from apps/web, as the router imports it. */
  page: string;
  /** The API paths the page asks for first (GET, no query string). */
  answers: string[];
}

const userData = '/api/auth/user-data';

export const earlyStarts: EarlyStart[] = [
  {
    path: '^/dashboard$',
    page: 'src/features/dashboard/components/dashboard-page.tsx',
    // The cards' Watch live and latest stills (camera-grid.tsx) with the list, not after it: an
    // account with no camera leaves this small answer unused.
    answers: [userData, '/api/cameras/plansV2', '/api/live-view'],
  },
  {
    path: '^/camera/([^/]+)$',
    page: 'src/features/cameras/components/camera-details-page.tsx',
    answers: [userData, '/api/cameras/sim-info/$1', '/api/live-view/$1'],
  },
  {
    path: '^/livestreaming$',
    page: 'src/features/livestream/components/livestreaming-page.tsx',
    answers: [
      userData,
      '/api/livestreaming/cameras',
      '/api/livestreaming/showcase',
      '/api/livestreaming/demo-camera',
    ],
  },
  // A camera's billing account first (billing-account-page.tsx), and what the page under it asks
  // for once the account is found, whatever the person's role: with the account, not a round
  // trip after it (decision 175). What only some roles are shown (the saved cards, the team, the
  // activity) the app asks for once user-data has said who may see it.
  {
    path: '^/subscription/([^/]+)$',
    page: 'src/features/subscription/components/subscription-page.tsx',
    answers: [
      userData,
      '/api/billing/account/$1',
      '/api/subscriptions/fetch-eligible-plans/$1',
      '/api/pause/check-active-pause/$1',
    ],
  },
  {
    path: '^/invoices/([^/]+)$',
    page: 'src/features/invoices/components/invoices-page.tsx',
    answers: [userData, '/api/billing/account/$1', '/api/invoices/fetch-invoices/$1'],
  },
  {
    path: '^/notifications$',
    page: 'src/features/notifications/components/notifications-page.tsx',
    answers: [userData, '/api/notifications/settings'],
  },
  { path: '^/team$', page: 'src/features/team/components/team-page.tsx', answers: [userData] },
  {
    path: '^/billing$',
    page: 'src/features/billing/components/billing-page.tsx',
    answers: [userData],
  },
  {
    path: '^/activity$',
    page: 'src/features/activity/components/activity-page.tsx',
    answers: [userData],
  },
];

/** The script's own text: no imports, no modules, runs in any browser the portal supports. */
export function earlyStartScript(
  starts: { path: string; preload: string[]; answers: string[] }[],
  tokenStorageKey: string,
): string {
  return `(function () {
  try {
    // A query (e.g. ?refresh=true) asks the page for something else: let the app ask.
    if (location.search) return;
    var token = localStorage.getItem(${JSON.stringify(tokenStorageKey)});
    if (!token) return;
    var starts = ${JSON.stringify(starts)};
    for (var i = 0; i < starts.length; i++) {
      var match = new RegExp(starts[i].path).exec(location.pathname);
      if (!match) continue;
      // An id as the portal writes them (a SIM's digits, a billing account's cus_…); anything
      // else, such as an escaped dot, is left to the app, which encodes it.
      if (match[1] !== undefined && !/^[A-Za-z0-9_-]+$/.test(match[1])) return;
      // The answers first: on HTTP/1.1 a browser opens six connections to a server, and what is
      // asked for first is sent first (the page's code is asked for by the app as well).
      var answers = {};
      starts[i].answers.forEach(function (path) {
        var url = path.replace('$1', match[1] || '');
        var answer = fetch(url, {
          headers: { Accept: 'application/json', Authorization: 'Bearer ' + token },
        }).then(function (response) {
          return response.text().then(function (text) {
            return { status: response.status, text: text };
          });
        });
        answer.catch(function () {});
        answers[url] = answer;
      });
      starts[i].preload.forEach(function (href) {
        var link = document.createElement('link');
        var isStyle = /\\.css$/.test(href);
        link.rel = isStyle ? 'preload' : 'modulepreload';
        if (isStyle) link.as = 'style';
        link.crossOrigin = '';
        link.href = href;
        document.head.appendChild(link);
      });
      window[${JSON.stringify(earlyAnswersGlobal)}] = { token: token, at: Date.now(), answers: answers };
      return;
    }
  } catch (error) {
    // Storage refused or an old browser: the app asks for everything itself, as before.
  }
})();
`;
}
