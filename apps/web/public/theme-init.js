/* global window, document */
// Applies the theme chosen on this device before the first paint (decision 125). The build writes
// it inline into the pages (prerender-plugin.ts; the Content-Security-Policy allows it by its
// hash, decision 118); this file serves the development server. The key and values are the ones
// src/lib/theme.ts writes.
(function () {
  try {
    var choice = window.localStorage.getItem('farmcam-theme');
    if (choice === 'light' || choice === 'dark') {
      document.documentElement.setAttribute('data-theme', choice);
    }
  } catch {
    // Storage refused (private mode): the system's preference applies.
  }
})();
