#!/usr/bin/env bash
# Installs the Debian packages the tests need (Chromium for Playwright and Lighthouse; ffmpeg and
# GStreamer's RTSP server for the recorder), or stops with one line saying how.
set -euo pipefail

packages=()
[ -x /usr/bin/chromium ] || packages+=(chromium)
command -v ffmpeg >/dev/null 2>&1 || packages+=(ffmpeg)
/usr/bin/python3 -c 'import gi; gi.require_version("GstRtspServer", "1.0")' >/dev/null 2>&1 ||
  packages+=(gir1.2-gst-rtsp-server-1.0 python3-gi gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly)

[ ${#packages[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian packages the tests need: ${packages[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
  exit 0
fi
echo "Missing system packages for the tests; run: sudo apt-get install -y ${packages[*]}" >&2
exit 1
