import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/global.css';
import { App } from './app/app.tsx';

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('index.html has no #root element');

declare global {
  interface Window {
    /** Set by the prerendered landing page's boot script (prerender-plugin.ts). */
    farmcamTakeHeldSubmit?: () => boolean;
  }
}

function render(root: HTMLElement) {
  // The first render replaces the prerendered page in the same task, so nothing blank is
  // painted between (nothing hydrates). What a visitor already typed into it is kept, and a
  // submit they made while the app started is sent now rather than lost.
  const typed = root.querySelector<HTMLInputElement>('input[name="email"]')?.value ?? '';
  const submitted = window.farmcamTakeHeldSubmit?.() ?? false;
  root.replaceChildren();
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
  if (typed) restoreTyped(root, typed);
  // After the field's new value has rendered (state updates render before the next task).
  if (typed && submitted) setTimeout(() => root.querySelector('form')?.requestSubmit(), 0);
}

/** Puts the address typed into the prerendered form into the app's field (a controlled input). */
function restoreTyped(root: HTMLElement, typed: string) {
  const input = root.querySelector<HTMLInputElement>('input[name="email"]');
  if (!input) return;
  input.value = typed;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

// `/` arrives with the visitor's sign-in page prerendered and painted (prerender-plugin.ts): the
// app's render then runs as a task of its own, after the modules' evaluation, so neither blocks
// the page for long (docs/decisions/083). Every other page renders at once.
if (rootElement.hasChildNodes()) setTimeout(() => render(rootElement), 0);
else render(rootElement);
