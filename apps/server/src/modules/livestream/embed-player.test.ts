// @vitest-environment happy-dom
/**
 * The embed page's player script (embed/livestream-embed.js) in a DOM: the page as the server
 * renders it, fetch answered by the test, the minute check driven by fake timers.
 */
import type { Window as DomWindow } from 'happy-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { embedAssets, renderEmbedPage, renderRefusedEmbedPage } from './embed.ts';

// The server's TypeScript has no DOM library: the test window's types come from happy-dom.
const dom = globalThis as unknown as DomWindow;
const document = dom.document;
type HTMLElement = InstanceType<DomWindow['HTMLElement']>;
type HTMLButtonElement = InstanceType<DomWindow['HTMLButtonElement']>;

type Answer = { status: number; body: string; headers?: Record<string, string> };

function loadPlayer(
  answers: Answer[],
  options = { hasAudio: false },
  page: { publicId?: string; pageLoad?: string | null } = {},
) {
  // The page's body only: its <head> would make the DOM fetch the stylesheet.
  const html = renderEmbedPage(
    page.publicId ?? 'ls_abcdefghijklmnopqrstuv',
    page.pageLoad ?? null,
    options,
  );
  document.body.innerHTML = html.slice(html.indexOf('<body>') + 6, html.indexOf('</body>'));
  const requests: string[] = [];
  const fetchMock = vi.fn(async (url: string) => {
    requests.push(url);
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    // Status 0: the network failed (fetch rejects, as a browser's does offline).
    if (answer.status === 0) throw new TypeError('Failed to fetch');
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  });
  vi.stubGlobal('fetch', fetchMock);
  const video = document.querySelector('video')!;
  video.play = vi.fn(() => Promise.resolve());
  // The script is an IIFE, as a browser runs it.
  new Function(embedAssets.script)();
  return {
    video,
    requests,
    player: document.querySelector('.player')!,
    statusText: () => document.querySelector('.status-text')!.textContent,
  };
}

const flush = async () => {
  for (let index = 0; index < 5; index += 1) await Promise.resolve();
  await vi.advanceTimersByTimeAsync(0);
};

describe('embed player', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    document.body.innerHTML = '';
  });

  it('says why there is no clip yet, and starts playing when the server said to ask again', async () => {
    const clip = 'https://media.example/clips/first.mp4?signature=s';
    const noClip =
      'Calving pen has no clip yet. The first one is due at 12:00 today (UK time) and plays here by itself.';
    const answers: Answer[] = [
      {
        status: 404,
        body: noClip,
        headers: {
          'x-livestream-state': 'no-clip',
          'x-camera-name': 'Calving%20pen',
          'x-next-clip-at': '2026-11-28T12:00:00.000Z',
          'retry-after': '150',
        },
      },
      { status: 200, body: clip },
    ];
    const { video, player, statusText, requests } = loadPlayer(answers);
    await flush();
    expect(player.classList.contains('failed')).toBe(true);
    expect(player.getAttribute('data-state')).toBe('no-clip');
    expect(statusText()).toBe(noClip);
    expect(video.getAttribute('src')).toBeNull();

    // Not before the server's Retry-After (the clip is due then), and not a minute loop.
    await vi.advanceTimersByTimeAsync(149_000);
    await flush();
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    expect(requests).toHaveLength(2);
    expect(video.src).toBe(clip);
    expect(video.play).toHaveBeenCalled();
    expect(player.hasAttribute('data-state')).toBe(false);
  });

  it('backs off after network failures (5 s, 10 s, 20 s) and says it tries again', async () => {
    const clip = 'https://media.example/clips/a.mp4?signature=s';
    const failed: Answer = { status: 0, body: '' };
    const { video, statusText, requests } = loadPlayer([
      failed,
      failed,
      failed,
      { status: 200, body: clip },
    ]);
    await flush();
    expect(statusText()).toBe(
      'The livestream could not be reached. This page tries again by itself.',
    );
    const requestsAfter = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      await flush();
      return requests.length;
    };
    expect(await requestsAfter(4_900)).toBe(1);
    expect(await requestsAfter(100)).toBe(2); // 5 s
    expect(await requestsAfter(9_900)).toBe(2);
    expect(await requestsAfter(100)).toBe(3); // 10 s later
    expect(await requestsAfter(19_900)).toBe(3);
    expect(await requestsAfter(100)).toBe(4); // 20 s later: the clip plays
    expect(video.src).toBe(clip);
    // Playing again: back to the minute check.
    expect(await requestsAfter(59_900)).toBe(4);
    expect(await requestsAfter(100)).toBe(5);
  });

  it("a link's page whose first try was lost still proves its load on the next", async () => {
    const clip = 'https://media.example/clips/a.mp4?signature=s';
    const { video, requests } = loadPlayer(
      [
        { status: 0, body: '' },
        { status: 200, body: clip, headers: { 'x-page-load': 'renewed' } },
      ],
      undefined,
      { publicId: 'lk_abcdefghijklmnopqrstuvwx', pageLoad: 'first-token' },
    );
    await flush();
    await vi.advanceTimersByTimeAsync(5_000);
    await flush();
    expect(video.src).toBe(clip);
    expect(requests).toEqual([
      '/api/livestreaming/livestream-url?camera_id=lk_abcdefghijklmnopqrstuvwx&load=first-token',
      '/api/livestreaming/livestream-url?camera_id=lk_abcdefghijklmnopqrstuvwx&load=first-token',
    ]);
  });

  it('a paused camera is asked about again when the server says, and plays once back', async () => {
    const clip = 'https://media.example/clips/a.mp4?signature=s';
    const paused =
      'The farm has paused Calving pen until Mon 1 Dec. Clips play here again by themselves after that.';
    const { video, statusText, requests } = loadPlayer([
      {
        status: 404,
        body: paused,
        headers: { 'x-livestream-state': 'paused', 'retry-after': '300' },
      },
      { status: 200, body: clip },
    ]);
    await flush();
    expect(statusText()).toBe(paused);
    await vi.advanceTimersByTimeAsync(299_000);
    await flush();
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    expect(video.src).toBe(clip);
  });

  it('stops asking for a final state (revoked, expired, ended): waiting changes nothing', async () => {
    for (const state of ['revoked', 'expired', 'terminated', 'missing']) {
      document.body.innerHTML = '';
      const { statusText, requests, player } = loadPlayer([
        { status: 404, body: `Final: ${state}`, headers: { 'x-livestream-state': state } },
      ]);
      await flush();
      expect(statusText()).toBe(`Final: ${state}`);
      expect(player.getAttribute('data-state')).toBe(state);
      await vi.advanceTimersByTimeAsync(60 * 60_000);
      await flush();
      expect(requests).toHaveLength(1);
    }
  });

  it('shows when the clip was recorded, and an offline poster once switched off', async () => {
    const clip = 'https://media.example/clips/a.mp4?signature=s';
    const answers: Answer[] = [
      {
        status: 200,
        body: clip,
        headers: { 'x-clip-caption': 'Recorded at 14:05 on 24 Nov (UK time)' },
      },
      {
        status: 404,
        body: 'This livestream is switched off.',
        headers: { 'x-livestream-state': 'off' },
      },
    ];
    const { video, player, statusText } = loadPlayer(answers);
    await flush();
    expect(video.src).toBe(clip);
    const caption = player.querySelector<HTMLElement>('.caption')!;
    expect(caption.hidden).toBe(false);
    expect(caption.textContent).toBe('Recorded at 14:05 on 24 Nov (UK time)');

    // Switched off: the old clip stops and the poster says so, at the next minute check.
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    expect(player.classList.contains('offline')).toBe(true);
    expect(video.getAttribute('src')).toBeNull();
    expect(caption.hidden).toBe(true);
    expect(statusText()).toBe('This livestream is switched off.');
  });

  it('offers Unmute only when the stream records sound, and a Fullscreen button', async () => {
    Object.defineProperty(document, 'fullscreenEnabled', { value: true, configurable: true });
    const requestFullscreen = vi.fn(() => Promise.resolve());
    Object.defineProperty(dom.HTMLElement.prototype, 'requestFullscreen', {
      value: requestFullscreen,
      configurable: true,
    });
    const clip = 'https://media.example/clips/a.mp4?signature=s';
    const { video, player } = loadPlayer([{ status: 200, body: clip }], { hasAudio: true });
    await flush();
    const sound = player.querySelector<HTMLButtonElement>('button.sound')!;
    expect(video.muted).toBe(true);
    expect(sound.textContent).toBe('Unmute');
    sound.click();
    expect(video.muted).toBe(false);
    expect(sound.textContent).toBe('Mute');
    const fullscreen = player.querySelector<HTMLButtonElement>('button.fullscreen')!;
    expect(fullscreen.hidden).toBe(false);
    fullscreen.click();
    expect(requestFullscreen).toHaveBeenCalled();

    document.body.innerHTML = '';
    const silent = loadPlayer([{ status: 200, body: clip }]);
    expect(silent.player.querySelector('button.sound')).toBeNull();
  });

  it("a public link's player sends the newest page-load token with every request", async () => {
    const clip = 'https://media.example/clips/a.mp4?expires=1&signature=s';
    const answers: Answer[] = [1, 2, 3].map((renewal) => ({
      status: 200,
      body: clip,
      headers: { 'x-page-load': `renewed-${renewal}` },
    }));
    const { requests } = loadPlayer(answers, undefined, {
      publicId: 'lk_abcdefghijklmnopqrstuvwx',
      pageLoad: 'first-token',
    });
    await flush();
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    expect(requests).toEqual([
      '/api/livestreaming/livestream-url?camera_id=lk_abcdefghijklmnopqrstuvwx&load=first-token',
      '/api/livestreaming/livestream-url?camera_id=lk_abcdefghijklmnopqrstuvwx&refresh=1&load=renewed-1',
      '/api/livestreaming/livestream-url?camera_id=lk_abcdefghijklmnopqrstuvwx&refresh=1&load=renewed-2',
    ]);
  });

  it("the livestream's own code sends its token once, and its checks are the same for everyone", async () => {
    const clip = 'https://media.example/clips/a.mp4?signature=s';
    const { requests } = loadPlayer([{ status: 200, body: clip }], undefined, {
      pageLoad: 'first-token',
    });
    await flush();
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    expect(requests).toEqual([
      '/api/livestreaming/livestream-url?camera_id=ls_abcdefghijklmnopqrstuv&load=first-token',
      '/api/livestreaming/livestream-url?camera_id=ls_abcdefghijklmnopqrstuv&refresh=1',
    ]);
  });

  it('takes the fresh clip address at a loop before the old one runs out (five minutes)', async () => {
    const address = (minute: number) =>
      `https://media.example/clips/a.mp4?expires=${minute}&signature=s`;
    let minute = 0;
    const { video, requests } = loadPlayer([{ status: 200, body: address(0) }]);
    await flush();
    expect(video.src).toBe(address(0));
    // Each minute's check brings the same clip under a new address.
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        requests.push(url);
        return new Response(address(minute), { status: 200 });
      }),
    );
    const loop = () => {
      // The clip plays to its end and starts again: the moment a swap is invisible.
      Object.defineProperty(video, 'currentTime', { value: 14, configurable: true });
      video.dispatchEvent(new dom.Event('timeupdate'));
      Object.defineProperty(video, 'currentTime', { value: 0.1, configurable: true });
      video.dispatchEvent(new dom.Event('timeupdate'));
    };
    minute = 1;
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    loop();
    // A minute old: still the first address (no needless reload of the same clip).
    expect(video.src).toBe(address(0));
    minute = 2;
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    loop();
    // Two minutes old, at the loop: the fresh address, well inside the old one's four minutes.
    expect(video.src).toBe(address(2));
  });

  it('says to reload the page when its proof lapsed (asleep, another network), and stops the clip', async () => {
    const clip = 'https://media.example/clips/a.mp4?signature=s';
    const answers: Answer[] = [
      { status: 200, body: clip, headers: { 'x-page-load': 'renewed' } },
      {
        status: 403,
        body: 'Reload the page to keep watching this livestream.',
        headers: { 'x-livestream-state': 'reload' },
      },
    ];
    const { video, player, statusText } = loadPlayer(answers, undefined, {
      publicId: 'lk_abcdefghijklmnopqrstuvwx',
      pageLoad: 'first-token',
    });
    await flush();
    expect(video.src).toBe(clip);
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    expect(player.classList.contains('offline')).toBe(true);
    expect(video.getAttribute('src')).toBeNull();
    expect(statusText()).toBe('Reload the page to keep watching this livestream.');
  });

  it('a revoked link stops the open page at its next check, with the reason', async () => {
    const clip = 'https://media.example/clips/a.mp4?signature=s';
    const { video, player, statusText } = loadPlayer(
      [
        { status: 200, body: clip, headers: { 'x-page-load': 'renewed' } },
        {
          status: 404,
          body: 'This link has been switched off.',
          headers: { 'x-livestream-state': 'revoked' },
        },
      ],
      undefined,
      { publicId: 'lk_abcdefghijklmnopqrstuvwx', pageLoad: 'first-token' },
    );
    await flush();
    expect(video.src).toBe(clip);
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    expect(player.classList.contains('offline')).toBe(true);
    expect(video.getAttribute('src')).toBeNull();
    expect(statusText()).toBe('This link has been switched off.');
  });

  it("a refused link's poster reports the try once, with its page-load token", async () => {
    const html = renderRefusedEmbedPage(
      'This livestream is not allowed on this site.',
      'lk_abcdefghijklmnopqrstuvwx',
      '1773144000.Y29weWNhdC5leGFtcGxl.mac',
    );
    document.body.innerHTML = html.slice(html.indexOf('<body>') + 6, html.indexOf('</body>'));
    const fetchMock = vi.fn(async () => new Response('', { status: 403 }));
    vi.stubGlobal('fetch', fetchMock);
    new Function(embedAssets.script)();
    await flush();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock).toHaveBeenCalledWith(
      '/api/livestreaming/livestream-url?camera_id=lk_abcdefghijklmnopqrstuvwx&load=1773144000.Y29weWNhdC5leGFtcGxl.mac',
      { credentials: 'omit' },
    );
    expect(document.querySelector('.status-text')!.textContent).toBe(
      'This livestream is not allowed on this site.',
    );
  });
});
