// @vitest-environment happy-dom
/**
 * The embed page's player script (embed/livestream-embed.js) in a DOM: the page as the server
 * renders it, fetch answered by the test, the minute check driven by fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { embedAssets, renderEmbedPage } from './embed.ts';

type Answer = { status: number; body: string; headers?: Record<string, string> };

function loadPlayer(answers: Answer[]) {
  // The page's body only: its <head> would make the DOM fetch the stylesheet.
  const html = renderEmbedPage('ls_abcdefghijklmnopqrstuv');
  document.body.innerHTML = html.slice(html.indexOf('<body>') + 6, html.indexOf('</body>'));
  const requests: string[] = [];
  const fetchMock = vi.fn(async (url: string) => {
    requests.push(url);
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
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

  it('starts playing as soon as a clip exists after a failed first load', async () => {
    const clip = 'https://media.example/clips/first.mp4?signature=s';
    const answers: Answer[] = [
      { status: 404, body: 'No clip has been recorded yet' },
      { status: 200, body: clip },
    ];
    const { video, player, statusText } = loadPlayer(answers);
    await flush();
    expect(player.classList.contains('failed')).toBe(true);
    expect(statusText()).toBe('Could not load the livestream.');
    expect(video.getAttribute('src')).toBeNull();

    // The minute check finds the first clip: it plays now, not on a loop that never comes.
    await vi.advanceTimersByTimeAsync(60_000);
    await flush();
    expect(video.src).toBe(clip);
    expect(video.play).toHaveBeenCalled();
  });
});
