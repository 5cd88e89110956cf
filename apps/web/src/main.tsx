import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import './styles/global.css';
import { App } from './app/app.tsx';
import { authStore } from './lib/auth-store.ts';
import { listenForInstallOffer, becomeInstallable } from './lib/install.ts';
import { keepLastKnownState } from './lib/persisted-queries.ts';
import { queryClient } from './lib/query-client.ts';

// The browser's offer to install may come before the first render (decision 117).
listenForInstallOffer();
// What this session saw on an earlier visit, shown at once while the network is asked (decision
// 119); the pages render meanwhile and pick the answers up as they arrive.
keepLastKnownState(queryClient);

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('index.html has no #root element');

const app = (
  <StrictMode>
    <App />
  </StrictMode>
);

// `/` arrives with the visitor's sign-in page prerendered (prerender-plugin.ts): the app takes
// those very elements over, so an address typed before it started stays in its field, and a
// submit made before then went to the server as a form post (decision 116). Someone signed in
// sees another page there, and every other path arrives with the app shell: both are replaced,
// in one task, so nothing blank is painted between.
const isVisitorLanding =
  rootElement.dataset.prerendered === 'landing' && authStore.getState().token === null;
if (isVisitorLanding) {
  hydrateRoot(rootElement, app);
} else {
  rootElement.replaceChildren();
  createRoot(rootElement).render(app);
}

becomeInstallable(queryClient);
