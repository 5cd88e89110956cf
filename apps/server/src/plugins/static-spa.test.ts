import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { inlineSourceHashes, staticSpaPlugin } from './static-spa.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

async function appServing(files: Record<string, string>) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-spa-'));
  folders.push(root);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  const app = Fastify();
  await app.register(staticSpaPlugin, { root });
  return app;
}

describe('the SPA server', () => {
  it('answers / with the prerendered landing page and every other page with the empty shell', async () => {
    const app = await appServing({
      'index.html': '<div id="root"></div>',
      'landing.html': '<div id="root"><h1>Sign in</h1></div>',
      'assets/index-abc.js': 'export {}',
    });
    for (const url of ['/', '/?from=email']) {
      const response = await app.inject(url);
      expect(response.body).toContain('<h1>Sign in</h1>');
      expect(response.headers['cache-control']).toBe('no-cache');
    }
    // A prerendered sign-in form must never show on another page, signed in or not.
    for (const url of ['/dashboard', '/camera/123', '/team-login']) {
      expect((await app.inject(url)).body).toBe('<div id="root"></div>');
    }
    const asset = await app.inject('/assets/index-abc.js');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const api = await app.inject('/api/nothing');
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('keeps the service worker and the manifest out of the HTTP cache, and leaves server paths alone', async () => {
    const app = await appServing({
      'index.html': '<div id="root"></div>',
      'sw.js': 'self.addEventListener("fetch", () => {});',
      'manifest.webmanifest': '{"name":"Farmcam Portal"}',
    });
    // A new version reaches phones at their next visit (decision 117).
    const worker = await app.inject('/sw.js');
    expect(worker.statusCode).toBe(200);
    expect(worker.headers['cache-control']).toBe('no-cache');
    const manifest = await app.inject('/manifest.webmanifest');
    expect(manifest.headers['cache-control']).toBe('no-cache');
    expect(manifest.headers['content-type']).toContain('application/manifest+json');
    // What the server answers itself is never the SPA's shell (serverOnlyPathPrefixes).
    for (const url of ['/media/clips/x', '/embed/x', '/login-link', '/dev/mail']) {
      const response = await app.inject(url);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('answers / with the shell when the build has no landing page', async () => {
    const app = await appServing({ 'index.html': '<div id="root"></div>' });
    expect((await app.inject('/')).body).toBe('<div id="root"></div>');
  });

  it("names the built pages' own inline scripts and styles for the CSP, and nothing else", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-spa-'));
    folders.push(root);
    const sha = (code: string) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`;
    fs.writeFileSync(
      path.join(root, 'index.html'),
      '<head><script>theme()</script>\n<script>early()</script><style>body{margin:0}</style>' +
        '<script type="module" src="/assets/index.js"></script></head><div id="root"></div>',
    );
    fs.writeFileSync(
      path.join(root, 'landing.html'),
      '<head><script>theme()</script><style>body{margin:0}</style>' +
        '<script defer src="/assets/landing-start.js"></script></head>',
    );
    expect(inlineSourceHashes(root)).toEqual({
      scripts: [sha('theme()'), sha('early()')],
      styles: [sha('body{margin:0}')],
    });
    // Without a build (tests, a server not yet built): no inline source is allowed.
    expect(inlineSourceHashes(path.join(root, 'missing'))).toEqual({ scripts: [], styles: [] });
  });
});
