/* global window, document */
/*
 * The embed page's player. It asks the public livestream-url endpoint for the latest clip's
 * address (plain text), plays it muted and looped, and checks every minute for a newer clip,
 * which it swaps in when the current one loops, so viewers always see the latest recording; when
 * nothing plays yet (no clip, a failed load) the first clip the check finds starts at once. A
 * switched-off livestream shows an offline poster; each clip shows when it was recorded.
 * Clip addresses live five minutes (at least four): the player swaps in the fresh one the minute
 * check brought, at a loop, before the old one runs out (docs/decisions/101).
 * No cookies, no tracking: the first request carries the page-load token the server put in this
 * page (it names the website that framed it, for the owner's view counts). A public link's
 * answers renew the token (X-Page-Load) and every request sends the newest, which is how a
 * restricted embed code proves each request comes from a page its listed website framed.
 * When there is nothing to play the server says why in a sentence (X-Livestream-State and the
 * body: no clip yet and when the next is due, switched off, paused, an expired or revoked link),
 * which is the poster; the player asks again by itself, when Retry-After says (or backing off
 * after a network failure), and stops asking for a final state such as a revoked link
 * (docs/decisions/120).
 */
(function () {
  'use strict';

  var refreshIntervalMs = 60 * 1000;
  // Clip addresses live at least four minutes (an answer may have been kept 30 s): the check after
  // a minute and a half brings a fresh one, swapped in at the next loop (a clip lasts at most a
  // minute), well before the old one runs out.
  var renewAfterMs = 90 * 1000;
  var failureText = 'The livestream could not be reached. This page tries again by itself.';
  var offlineText = 'This livestream is not available right now.';
  /** States that waiting will not change: the poster stays and the player stops asking. */
  var finalStates = ['terminated', 'expired', 'revoked', 'not-allowed', 'reload', 'missing'];
  // After a failure with no advice from the server: 5 s, 10 s, 20 s ... up to 5 minutes.
  var backOffFirstMs = 5 * 1000;
  var backOffMaxMs = 5 * 60 * 1000;

  // A refused public link's poster: report the try once (counted for the site the page proves).
  var refused = document.querySelector('[data-refused-url]');
  if (refused) {
    fetch(refused.getAttribute('data-refused-url'), { credentials: 'omit' }).catch(function () {});
    return;
  }

  var player = document.querySelector('[data-stream-url]');
  if (!player) return;
  var video = player.querySelector('video');
  var status = player.querySelector('.status');
  var statusText = player.querySelector('.status-text');
  var caption = player.querySelector('.caption');
  var streamUrl = player.getAttribute('data-stream-url');

  var pageLoad = player.getAttribute('data-page-load') || '';
  // Whether the server renews the token (a public link): then every request carries it.
  var renewsProof = false;

  var current = { url: '', path: '', caption: '', loadedAt: 0 };
  var pending = null;
  var lastTime = 0;
  var hasRetriedAfterError = false;
  var failures = 0;
  var timer = 0;
  var stopped = false;
  // Until the server has answered once, each try is the page's first request: it carries the
  // page-load token and counts the view (a first try lost to the network proved nothing yet).
  var hasAnswer = false;

  function pathOf(url) {
    try {
      var parsed = new URL(url, window.location.href);
      return parsed.origin + parsed.pathname;
    } catch {
      return url;
    }
  }

  function requestAddress(isRefresh) {
    var proof =
      pageLoad && (!isRefresh || renewsProof) ? '&load=' + encodeURIComponent(pageLoad) : '';
    return streamUrl + (isRefresh ? '&refresh=1' : '') + proof;
  }

  /** What is not playing: nothing (`failed`), or a livestream its owner switched off. */
  function isIdle() {
    return !current.url || player.classList.contains('failed');
  }

  function showFailure(error) {
    if (error && error.state) return showOffline(error.posterText, error.state);
    player.classList.remove('offline');
    player.classList.add('failed');
    player.setAttribute('aria-busy', 'false');
    statusText.textContent = failureText;
    status.hidden = false;
  }

  // Switched off (the answer says so): stop the old clip and show the offline poster, since a
  // loop of an old clip would pass for live (docs/decisions/046).
  function showOffline(text, state) {
    pending = null;
    current = { url: '', path: '', caption: '', loadedAt: 0 };
    video.pause();
    video.removeAttribute('src');
    video.load();
    caption.hidden = true;
    player.classList.add('failed', 'offline');
    player.setAttribute('aria-busy', 'false');
    statusText.textContent = text || offlineText;
    status.hidden = false;
    player.setAttribute('data-state', state || 'off');
  }

  function play(clip) {
    current = {
      url: clip.url,
      path: pathOf(clip.url),
      caption: clip.caption,
      loadedAt: Date.now(),
    };
    pending = null;
    lastTime = 0;
    player.classList.remove('offline');
    player.removeAttribute('data-state');
    // "Recorded at 14:05 on 24 Nov (UK time)", worded by the server: viewers see the clip's age.
    caption.textContent = clip.caption;
    caption.hidden = !clip.caption;
    video.src = clip.url;
    var playing = video.play();
    // Autoplay of a muted video is allowed; if a browser still refuses, the poster stays.
    if (playing && playing.catch) playing.catch(function () {});
  }

  function fetchLatest(isRefresh) {
    return fetch(requestAddress(isRefresh), { credentials: 'omit' }).then(function (response) {
      hasAnswer = true;
      var renewed = response.headers.get('x-page-load');
      if (renewed) {
        pageLoad = renewed;
        renewsProof = true;
      }
      if (!response.ok) {
        var error = new Error('HTTP ' + response.status);
        error.state = response.headers.get('x-livestream-state') || '';
        var retryAfter = Number(response.headers.get('retry-after'));
        error.retryAfterMs = retryAfter > 0 ? retryAfter * 1000 : 0;
        if (!error.state) throw error;
        // The server's sentence says why there is nothing to play: it is the poster (decision 120).
        return response.text().then(function (text) {
          error.posterText = text.trim().slice(0, 300);
          throw error;
        });
      }
      return response.text().then(function (text) {
        var url = text.trim();
        if (!/^https?:\/\//.test(url)) throw new Error('Not an address');
        return { url: url, caption: response.headers.get('x-clip-caption') || '' };
      });
    });
  }

  video.addEventListener('playing', function () {
    status.hidden = true;
    player.setAttribute('aria-busy', 'false');
    player.classList.remove('failed');
    hasRetriedAfterError = false;
  });

  video.addEventListener('timeupdate', function () {
    // The clip looped: the moment to swap in a newer one without a visible jump.
    if (pending && video.currentTime < lastTime) play(pending);
    lastTime = video.currentTime;
  });

  video.addEventListener('error', function () {
    // Emptying the player for the offline poster is not a failure to report.
    if (!current.url) return;
    if (hasRetriedAfterError) {
      showFailure();
      return scheduleCheck(backOff());
    }
    hasRetriedAfterError = true;
    // Ask for a fresh address at once and play it (the clip's address may have run out).
    player.classList.add('failed');
    check();
  });

  // Sound: autoplay starts muted; a stream recorded with audio lets the viewer unmute it.
  var soundButton = player.querySelector('.sound');
  if (soundButton) {
    soundButton.addEventListener('click', function () {
      video.muted = !video.muted;
      // The label says what a press does (not aria-pressed as well: that would contradict it).
      soundButton.textContent = video.muted ? 'Unmute' : 'Mute';
    });
  }

  // Fullscreen of the whole player (the caption stays), where the browser and frame allow it.
  var fullscreenButton = player.querySelector('.fullscreen');
  if (fullscreenButton && document.fullscreenEnabled && player.requestFullscreen) {
    fullscreenButton.hidden = false;
    fullscreenButton.addEventListener('click', function () {
      if (document.fullscreenElement) {
        document.exitFullscreen();
      } else {
        var request = player.requestFullscreen();
        if (request && request.catch) request.catch(function () {});
      }
    });
  }

  /** The next wait after a failure the server gave no advice on: doubling, up to 5 minutes. */
  function backOff() {
    var wait = Math.min(backOffMaxMs, backOffFirstMs * Math.pow(2, failures));
    failures += 1;
    return wait;
  }

  function scheduleCheck(delayMs) {
    if (stopped) return;
    window.clearTimeout(timer);
    timer = window.setTimeout(check, delayMs);
  }

  /** Asks for the latest clip; what it finds decides when to ask next. */
  function check() {
    window.clearTimeout(timer);
    fetchLatest(hasAnswer).then(
      function (clip) {
        failures = 0;
        // Nothing is playing (no clip yet at load, an outage, a broken clip, switched off):
        // start at once rather than wait for a loop that never comes (docs/decisions/046).
        if (isIdle()) {
          play(clip);
        } else {
          var isNewClip = pathOf(clip.url) !== current.path;
          var isOld = Date.now() - current.loadedAt > renewAfterMs;
          if (isNewClip || (isOld && clip.url !== current.url)) pending = clip;
        }
        scheduleCheck(refreshIntervalMs);
      },
      function (error) {
        if (error && error.state) {
          // The server says why: show it now (switched off, paused, revoked, or a page whose proof
          // lapsed while it slept or moved network, which only reloading the page proves anew).
          showOffline(error.posterText, error.state);
          if (finalStates.indexOf(error.state) >= 0) {
            stopped = true;
            window.clearTimeout(timer);
            return;
          }
          failures = 0;
          return scheduleCheck(error.retryAfterMs || refreshIntervalMs);
        }
        // A network failure or a server error: keep playing what we have, or say so, and try
        // again later, further apart each time (Retry-After when a limit was met).
        if (isIdle()) showFailure();
        var wait = backOff();
        scheduleCheck(error && error.retryAfterMs ? Math.max(error.retryAfterMs, wait) : wait);
      },
    );
  }

  check();
})();
