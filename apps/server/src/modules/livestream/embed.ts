/**
 * The embed code customers paste into their website, and the small page it frames (docs/requirements.md#data
 * Embed code): a muted, looping, autoplaying video of the latest clip, a spinner with
 * 'Loading livestream...', and on failure the server's sentence saying why (no clip yet and when the
 * next is due, switched off, paused, an expired link: decision 120); an Unmute button
 * when the stream records sound, and a Fullscreen button.
 *
 * The code is an <iframe> of our page (docs/decisions/040): no script of ours runs on the
 * customer's site, nothing secret is in it (the stream is named by its unguessable public id),
 * and the page carries its own Content-Security-Policy with its script in a separate file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapeHtml } from '@farmcam/contract/rules';

const assetsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'embed');

/** The player script and style, read once. */
export const embedAssets = {
  script: fs.readFileSync(path.join(assetsFolder, 'livestream-embed.js'), 'utf8'),
  style: fs.readFileSync(path.join(assetsFolder, 'livestream-embed.css'), 'utf8'),
};

export const embedScriptPath = '/embed/livestream-embed.js';
export const embedStylePath = '/embed/livestream-embed.css';
export const livestreamUrlPath = '/api/livestreaming/livestream-url';

export const embedPageUrl = (publicUrl: string, publicId: string) =>
  `${publicUrl}/embed/${encodeURIComponent(publicId)}`;

/** The HTML a website manager pastes: a responsive 16:9 frame of the embed page. */
export function buildEmbedCode(publicUrl: string, publicId: string): string {
  return [
    `<iframe src="${escapeHtml(embedPageUrl(publicUrl, publicId))}"`,
    ` title="Farm camera livestream" width="640" height="360"`,
    ` style="border:0;max-width:100%;height:auto;aspect-ratio:16/9"`,
    ` allow="autoplay; fullscreen" loading="lazy"></iframe>`,
  ].join('');
}

/**
 * The embed page's policy: our script and style only, the clip address from our API, the video
 * from wherever storage serves it, and framing by any website (that is its purpose) or, for an
 * embed code restricted to websites, by those only (`frameAncestorSources`, decision 100).
 */
export function embedContentSecurityPolicy(
  mediaOrigins: readonly string[],
  frameAncestors = '*',
): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    `media-src 'self' ${mediaOrigins.join(' ')}`.trim(),
    "img-src 'self' data:",
    `frame-ancestors ${frameAncestors}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * The page the embed code frames; the player script fills in the video. `pageLoad` is the signed
 * token that proves this page load to livestream-url (public-playback/page-load-token.ts): the website that
 * framed it, if any. The script sends it with its first request; a public link's answers renew
 * it, and the script sends the newest with every request after (decision 100).
 */
export function renderEmbedPage(
  publicId: string,
  pageLoad: string | null = null,
  options: { hasAudio: boolean } = { hasAudio: false },
): string {
  const streamUrl = `${livestreamUrlPath}?camera_id=${encodeURIComponent(publicId)}`;
  const pageLoadAttribute = pageLoad ? ` data-page-load="${escapeHtml(pageLoad)}"` : '';
  // Autoplay needs the video muted; a stream recorded with sound offers the viewer an unmute
  // button, and every stream a fullscreen one (the code allows fullscreen): decision 046.
  const soundButton = options.hasAudio
    ? '<button type="button" class="control sound">Unmute</button>'
    : '';
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="strict-origin-when-cross-origin">
<title>Farm camera livestream</title>
<link rel="stylesheet" href="${embedStylePath}">
<script src="${embedScriptPath}" defer></script>
</head>
<body>
<div class="player" data-stream-url="${escapeHtml(streamUrl)}"${pageLoadAttribute} aria-busy="true">
<video muted autoplay loop playsinline preload="auto" aria-label="Farm camera livestream"></video>
<div class="caption" hidden></div>
<div class="controls">${soundButton}<button type="button" class="control fullscreen" hidden>Fullscreen</button></div>
<div class="status" role="status"><span class="spinner" aria-hidden="true"></span><span class="status-text">Loading livestream...</span></div>
</div>
</body>
</html>
`;
}

/** For an id that names no livestream: the same frame, already failed, without the player. */
export function renderMissingEmbedPage(notice: { sentence: string }): string {
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Farm camera livestream</title>
<link rel="stylesheet" href="${embedStylePath}">
</head>
<body>
<div class="player failed refused">
<div class="status poster" role="status">${posterIcon}<span class="status-text">${escapeHtml(notice.sentence)}</span></div>
</div>
</body>
</html>
`;
}

/**
 * A public link that may not play here (not on this site, expired, switched off): the frame shows
 * a poster with the reason, never a blank (docs/decisions/096). With a page-load token, its script
 * reports the refused try once, so it is counted for the site that proved it (decision 100).
 */
export function renderRefusedEmbedPage(
  message: string,
  publicId?: string,
  pageLoad?: string,
): string {
  const report =
    publicId && pageLoad
      ? ` data-refused-url="${escapeHtml(
          `${livestreamUrlPath}?camera_id=${encodeURIComponent(publicId)}&load=${encodeURIComponent(pageLoad)}`,
        )}"`
      : '';
  const script = report ? `\n<script src="${embedScriptPath}" defer></script>` : '';
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Farm camera livestream</title>
<link rel="stylesheet" href="${embedStylePath}">${script}
</head>
<body>
<div class="player failed refused"${report}>
<div class="status poster" role="status">${posterIcon}<span class="status-text">${escapeHtml(message)}</span></div>
</div>
</body>
</html>
`;
}

/** A camera with a line through it, drawn inline (the page's policy allows no other source). */
const posterIcon =
  '<svg class="poster-icon" viewBox="0 0 48 48" width="48" height="48" aria-hidden="true" focusable="false"><rect x="6" y="14" width="26" height="20" rx="3" fill="none" stroke="currentColor" stroke-width="3"/><path d="M32 21l10-6v18l-10-6z" fill="none" stroke="currentColor" stroke-width="3" stroke-linejoin="round"/><path d="M6 42L42 6" stroke="currentColor" stroke-width="3" stroke-linecap="round"/></svg>';
