/* global window, document */
/*
 * The embed page's player. It asks the public livestream-url endpoint for the latest clip's
 * address (plain text), plays it muted and looped, and checks every minute for a newer clip,
 * which it swaps in when the current one loops, so viewers always see the latest recording; when
 * nothing plays yet (no clip, a failed load) the first clip the check finds starts at once.
 * No cookies, no tracking: the first request carries the page-load token the server put in this
 * page (it names the website that framed it, for the owner's view counts); nothing else is sent.
 */
(function () {
  'use strict';

  var refreshIntervalMs = 60 * 1000;
  // Signed clip addresses live at least two hours; take a fresh one well before that.
  var renewAfterMs = 30 * 60 * 1000;
  var failureText = 'Could not load the livestream.';

  var player = document.querySelector('[data-stream-url]');
  if (!player) return;
  var video = player.querySelector('video');
  var status = player.querySelector('.status');
  var statusText = player.querySelector('.status-text');
  var streamUrl = player.getAttribute('data-stream-url');

  var pageLoad = player.getAttribute('data-page-load') || '';

  var current = { url: '', path: '', loadedAt: 0 };
  var pending = null;
  var lastTime = 0;
  var hasRetriedAfterError = false;

  function pathOf(url) {
    try {
      var parsed = new URL(url, window.location.href);
      return parsed.origin + parsed.pathname;
    } catch {
      return url;
    }
  }

  function requestAddress(isRefresh) {
    if (isRefresh) return streamUrl + '&refresh=1';
    return streamUrl + (pageLoad ? '&load=' + encodeURIComponent(pageLoad) : '');
  }

  function showFailure() {
    player.classList.add('failed');
    player.setAttribute('aria-busy', 'false');
    statusText.textContent = failureText;
    status.hidden = false;
  }

  function play(url) {
    current = { url: url, path: pathOf(url), loadedAt: Date.now() };
    pending = null;
    lastTime = 0;
    video.src = url;
    var playing = video.play();
    // Autoplay of a muted video is allowed; if a browser still refuses, the poster stays.
    if (playing && playing.catch) playing.catch(function () {});
  }

  function fetchLatest(isRefresh) {
    return fetch(requestAddress(isRefresh), { credentials: 'omit' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.text();
      })
      .then(function (text) {
        var url = text.trim();
        if (!/^https?:\/\//.test(url)) throw new Error('Not an address');
        return url;
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
    if (hasRetriedAfterError) return showFailure();
    hasRetriedAfterError = true;
    fetchLatest(true).then(play, showFailure);
  });

  fetchLatest(false).then(play, showFailure);

  window.setInterval(function () {
    fetchLatest(true).then(
      function (url) {
        // Nothing is playing (no clip yet at load, an outage, a broken clip): start at once
        // rather than wait for a loop that never comes (docs/decisions/046).
        if (!current.url || player.classList.contains('failed')) {
          hasRetriedAfterError = false;
          play(url);
          return;
        }
        var isNewClip = pathOf(url) !== current.path;
        var isOld = Date.now() - current.loadedAt > renewAfterMs;
        if (isNewClip || (isOld && url !== current.url)) pending = url;
      },
      function () {
        // Keep playing what we have; the next check may succeed.
      },
    );
  }, refreshIntervalMs);
})();
