/**
 * What `/` makes the browser download before anything renders: the module scripts and
 * modulepreloads that index.html names (JavaScript) and its stylesheets (CSS), fetched from the
 * running server and gzipped here at level 9 so the budget does not depend on how the server
 * compresses. The bytes the server really sends to a browser (Accept-Encoding: br, gzip) are
 * reported beside it, since that is what Lighthouse and users pay for.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { metric, type Scenario } from '../lib/types.ts';

const name = 'initial-bundle';
// Issue 15's aim. React with React DOM (67 KB) and React Router (29 KB), each gzipped on its
// own, are over it before any code of ours (docs/decisions/083-faster-first-screen.md).
const jsBudgetBytes = 90 * 1024;

interface Tag {
  tag: string;
  attributes: Record<string, string>;
}

/** The <script> and <link> start tags of an HTML document with their attributes. */
function startTags(html: string): Tag[] {
  const tags: Tag[] = [];
  for (const match of html.matchAll(/<(script|link)\b([^>]*)>/gi)) {
    const attributes: Record<string, string> = {};
    const source = match[2] ?? '';
    for (const attribute of source.matchAll(
      /([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g,
    )) {
      const key = (attribute[1] ?? '').toLowerCase();
      attributes[key] = attribute[2] ?? attribute[3] ?? attribute[4] ?? '';
    }
    tags.push({ tag: (match[1] ?? '').toLowerCase(), attributes });
  }
  return tags;
}

interface FileSize {
  path: string;
  kind: 'js' | 'css';
  bytes: number;
  gzipBytes: number;
  /** Body bytes as served to a browser asking for br/gzip, and the encoding it got. */
  wireBytes: number;
  contentEncoding: string;
}

/** The body size on the wire (not decoded) for a browser-like Accept-Encoding. */
function fetchWire(url: string): Promise<{ bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      url,
      { headers: { 'accept-encoding': 'br, gzip, deflate' }, timeout: 10_000 },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () =>
          response.statusCode === 200
            ? resolve({ bytes, encoding: response.headers['content-encoding'] ?? 'identity' })
            : reject(new Error(`GET ${url} answered ${response.statusCode}`)),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out`)));
    request.on('error', reject);
  });
}

/** A 404 on an asset: the build was replaced while we read it (another `vite build`). */
class StaleBuildError extends Error {}

async function fetchBytes(url: string): Promise<Buffer> {
  const response = await fetch(url, {
    headers: { 'accept-encoding': 'identity' },
    signal: AbortSignal.timeout(10_000),
  });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status === 404) throw new StaleBuildError(`GET ${url} answered 404`);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return body;
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

/**
 * index.html as any page but `/` gets it (the app shell), which names what the app loads up
 * front. `/`'s prerendered page names the same files from its start script, after its first
 * frame (decision 116), so its HTML no longer lists them.
 */
const appShellPath = '/dashboard';

/** Reads index.html and everything it loads up front; throws StaleBuildError if dist changed. */
async function measureOnce(baseUrl: string): Promise<FileSize[]> {
  const html = (await fetchBytes(`${baseUrl}${appShellPath}`)).toString('utf8');
  const js = new Set<string>();
  const css = new Set<string>();
  for (const { tag, attributes } of startTags(html)) {
    const rel = (attributes.rel ?? '').toLowerCase().split(/\s+/);
    if (tag === 'script' && attributes.type === 'module' && attributes.src) js.add(attributes.src);
    if (tag === 'link' && rel.includes('modulepreload') && attributes.href) js.add(attributes.href);
    if (tag === 'link' && rel.includes('stylesheet') && attributes.href) css.add(attributes.href);
  }
  if (js.size === 0) throw new Error(`index.html names no module script:\n${html}`);

  const files: FileSize[] = [];
  for (const [kind, paths] of [
    ['js', js],
    ['css', css],
  ] as const) {
    for (const path of paths) {
      const url = new URL(path, `${baseUrl}/`).toString();
      const body = await fetchBytes(url);
      const wire = await fetchWire(url);
      files.push({
        path,
        kind,
        bytes: body.length,
        gzipBytes: zlib.gzipSync(body, { level: 9 }).length,
        wireBytes: wire.bytes,
        contentEncoding: wire.encoding,
      });
    }
  }
  const htmlAfter = (await fetchBytes(`${baseUrl}${appShellPath}`)).toString('utf8');
  if (htmlAfter !== html) throw new StaleBuildError('index.html changed while it was measured');
  return files;
}

const scenario: Scenario = {
  name,
  async run(context) {
    let files: FileSize[] | undefined;
    for (let attempt = 1; !files; attempt += 1) {
      try {
        files = await measureOnce(context.baseUrl);
      } catch (error) {
        if (!(error instanceof StaleBuildError) || attempt >= 5) throw error;
        context.log(`${error.message}: apps/web/dist is being rebuilt; retrying in 5 s`);
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    }
    for (const file of files) {
      context.log(
        `${file.kind.padEnd(3)} ${file.path.padEnd(48)} ${kb(file.bytes).padStart(8)} KB raw ` +
          `${kb(file.gzipBytes).padStart(7)} KB gzip ${kb(file.wireBytes).padStart(7)} KB served ` +
          `(${file.contentEncoding})`,
      );
    }
    const all = files;
    const sum = (kind: 'js' | 'css', key: 'bytes' | 'gzipBytes' | 'wireBytes') =>
      all.filter((file) => file.kind === kind).reduce((total, file) => total + file[key], 0);

    return {
      metrics: [
        metric(name, 'initial JS gzip (level 9)', sum('js', 'gzipBytes'), 'bytes', {
          atMost: jsBudgetBytes,
        }),
        metric(name, 'initial JS raw', sum('js', 'bytes'), 'bytes'),
        metric(name, 'initial JS as served (br/gzip asked)', sum('js', 'wireBytes'), 'bytes'),
        metric(name, 'initial JS files', all.filter((file) => file.kind === 'js').length, 'files'),
        metric(name, 'initial CSS gzip (level 9)', sum('css', 'gzipBytes'), 'bytes'),
      ],
      details: { files },
    };
  },
};

export default scenario;
