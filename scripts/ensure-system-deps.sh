#!/usr/bin/env bash
# Installs the Debian packages the app and its tests need, or stops with one line saying which.
# One list says what they are: apps/server/src/providers/camera/system-requirements.json
# (docs/decisions/060). Binaries are looked up on PATH, files (a font) by their path; the local
# camera's Python bindings, typelibs and GStreamer elements by `local-camera.py --check`, the way
# the camera itself uses them. GStreamer's elements can only be looked up once its bindings are there, so until then
# their packages count as missing too, and after installing we look again.
set -euo pipefail
cd "$(dirname "$0")/.."
list=apps/server/src/providers/camera/system-requirements.json
camera=apps/server/src/providers/camera/local-camera.py

# One line "<package> <requirement>" per requirement that is missing (or cannot be looked up yet).
missing() {
  local name package output status=0
  while read -r name package; do
    command -v "$name" >/dev/null 2>&1 || echo "$package $name"
  done < <(node -e '
    const { requirements } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    for (const entry of requirements) if (entry.kind === "binary") console.log(entry.name, entry.package);
  ' "$list")
  # Files the app reads at a fixed path (the timelapse font).
  while read -r name package; do
    [ -e "$name" ] || echo "$package $name"
  done < <(node -e '
    const { requirements } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    for (const entry of requirements) if (entry.kind === "file") console.log(entry.name, entry.package);
  ' "$list")
  [ -x /usr/bin/python3 ] || return 0
  output=$(/usr/bin/python3 "$camera" --check 2>&1) || status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then
    echo "The local camera's requirement check failed: $output" >&2
    exit 1
  fi
  awk '$1 == "MISSING" || $1 == "UNCHECKED" { print $4, $3 }' <<<"$output"
}

is_root_with_apt() { [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; }

is_updated=false
for _ in 1 2 3; do
  lines=$(missing)
  [ -z "$lines" ] && exit 0
  packages=$(awk '{ print $1 }' <<<"$lines" | sort -u | tr '\n' ' ')
  requirements=$(awk '{ print $2 }' <<<"$lines" | sort -u | tr '\n' ' ')
  if ! is_root_with_apt; then
    echo "Missing system packages (for ${requirements% }); run: sudo apt-get install -y --no-install-recommends ${packages% }" >&2
    exit 1
  fi
  echo "Installing Debian packages the app and tests need (for ${requirements% }): ${packages% }"
  # Waits for another apt (e.g. a parallel test run installing the same) instead of failing.
  if [ "$is_updated" = false ]; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
    is_updated=true
  fi
  # shellcheck disable=SC2086 # one word per package
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends $packages >/dev/null
done
echo "Still missing after installing: $(missing | tr '\n' ' ')" >&2
exit 1
