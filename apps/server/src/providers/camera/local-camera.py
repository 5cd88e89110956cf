"""The local demo camera: an RTSP server on this machine, like the one in a farm's IP camera.

Serves H.264 over RTSP (TCP or UDP) with GStreamer's RTSP server:
  /12  SD 640x360, 15 fps    /11  HD 1280x720, 15 fps
each with a moving test pattern, a clock (so clips visibly differ) and a G.711 A-law audio tone
(IP cameras commonly send G.711; the recorder turns it into AAC when audio is wanted).

Run with Debian's /usr/bin/python3 (the packages in system-requirements.json):
  /usr/bin/python3 local-camera.py --port 8554 [--host 127.0.0.1]
Prints "READY <port>" once listening (port 0 picks a free one), then serves until SIGTERM,
SIGINT, or its standard input closes (the app that started it has gone). When something it needs
is missing it prints "FAILED <what, and which package brings it>" and exits 1.

  /usr/bin/python3 local-camera.py --check
only checks: one line "MISSING <kind> <name> <package>" per missing requirement (exit 2 if any),
and "UNCHECKED …" for those it could not look up for want of the missing ones.
The app (local-camera.ts) and scripts/ensure-system-deps.sh both ask this (docs/decisions/060).
"""

import argparse
import importlib
import json
import re
import signal
import sys
from pathlib import Path

REQUIREMENTS_FILE = Path(__file__).with_name("system-requirements.json")

STREAMS = {
    "/12": (640, 360, "SD", 800),
    "/11": (1280, 720, "HD", 2500),
}


def pipeline(width, height, label, bitrate_kbps):
    # One shared pipeline per path serves every client, so twenty recordings cost one encoder.
    # A key frame every second lets a recording that joins mid-stream start within a second.
    return (
        "( videotestsrc is-live=true pattern=smpte horizontal-speed=2 "
        f"! video/x-raw,width={width},height={height},framerate=15/1 "
        f'! clockoverlay halignment=left valignment=bottom font-desc="Sans 18" '
        f'time-format="Farmcam demo camera {label}  %Y-%m-%d %H:%M:%S" '
        "! videoconvert "
        f"! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=15 bitrate={bitrate_kbps} "
        "! video/x-h264,profile=constrained-baseline "
        "! rtph264pay name=pay0 pt=96 config-interval=1 "
        "audiotestsrc is-live=true wave=sine freq=440 volume=0.15 "
        "! audio/x-raw,rate=8000,channels=1 ! audioconvert ! alawenc "
        "! rtppcmapay name=pay1 pt=8 )"
    )


def pipeline_elements():
    """The element names the pipelines use: the first word after "(" or "!" that is not caps."""
    names = set()
    for width, height, label, bitrate in STREAMS.values():
        for step in re.split(r"[(!)]", pipeline(width, height, label, bitrate)):
            words = step.split()
            if words and "/" not in words[0]:
                names.add(words[0])
    return names


def camera_requirements(requirements_file):
    with open(requirements_file, encoding="utf-8") as file:
        listed = json.load(file)["requirements"]
    requirements = [entry for entry in listed if entry["for"] == "camera"]
    # The list is the one truth the deps script installs from: a pipeline element missing from it
    # would pass that script and then fail here on a fresh machine.
    unlisted = pipeline_elements() - {
        entry["name"] for entry in requirements if entry["kind"] == "element"
    }
    if unlisted:
        names = ", ".join(sorted(unlisted))
        print(f"FAILED {requirements_file.name} does not list {names}", flush=True)
        sys.exit(1)
    return requirements


def missing_requirements(requirements):
    """What this machine lacks, looked up the way the camera uses it: (missing, unchecked), where
    unchecked is what could not be looked up because the bindings or GStreamer itself are missing."""

    def of_kind(*kinds):
        return [entry for entry in requirements if entry["kind"] in kinds]

    missing = []
    for module in of_kind("python-module"):
        try:
            importlib.import_module(module["name"])
        except ImportError:
            missing.append(module)
    if missing:
        return missing, of_kind("typelib", "element")

    import gi

    for typelib in of_kind("typelib"):
        namespace, version = typelib["name"].split("-", 1)
        try:
            gi.require_version(namespace, version)
            importlib.import_module(f"gi.repository.{namespace}")
        except (ImportError, ValueError):
            missing.append(typelib)
    if any(entry["name"].startswith("Gst-") for entry in missing):
        return missing, of_kind("element")

    from gi.repository import Gst

    Gst.init(None)
    missing += [
        entry for entry in of_kind("element") if Gst.ElementFactory.find(entry["name"]) is None
    ]
    return missing, []


def describe(missing):
    return ", ".join(f"{entry['kind']} {entry['name']} ({entry['package']})" for entry in missing)


def answer_not_seekable(_pad, info):
    # A handled SEEKING query keeps its defaults: not seekable.
    if info.get_query().type == Gst.QueryType.SEEKING:
        return Gst.PadProbeReturn.HANDLED
    return Gst.PadProbeReturn.OK


def make_unseekable(_factory, media):
    # A camera's stream is live. Each PLAY ("Range: npt=0-") would otherwise seek the shared
    # pipeline back to 0 and restart the timestamps of every client already recording.
    for name in ("pay0", "pay1"):
        payloader = media.get_element().get_by_name(name)
        if payloader is not None:
            payloader.get_static_pad("src").add_probe(
                Gst.PadProbeType.QUERY_UPSTREAM, answer_not_seekable
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", default="8554")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--check", action="store_true", help="only report what is missing")
    parser.add_argument("--requirements", type=Path, default=REQUIREMENTS_FILE)
    arguments = parser.parse_args()

    missing, unchecked = missing_requirements(camera_requirements(arguments.requirements))
    if arguments.check:
        for status, entries in (("MISSING", missing), ("UNCHECKED", unchecked)):
            for entry in entries:
                print(f"{status} {entry['kind']} {entry['name']} {entry['package']}", flush=True)
        sys.exit(2 if missing else 0)
    if missing:
        print(f"FAILED missing {describe(missing)}", flush=True)
        sys.exit(1)

    # Imported only now, so a machine without them gets the list above instead of a traceback.
    global GLib, Gst, GstRtspServer
    from gi.repository import GLib, Gst, GstRtspServer

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address(arguments.host)
    server.set_service(str(arguments.port))
    mounts = server.get_mount_points()
    for path, (width, height, label, bitrate) in STREAMS.items():
        factory = GstRtspServer.RTSPMediaFactory()
        factory.set_launch(pipeline(width, height, label, bitrate))
        factory.set_shared(True)
        factory.connect("media-configure", make_unseekable)
        mounts.add_factory(path, factory)

    if server.attach(None) == 0:
        print(f"FAILED could not listen on {arguments.host}:{arguments.port}", flush=True)
        sys.exit(1)
    print(f"READY {server.get_bound_port()}", flush=True)

    loop = GLib.MainLoop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal_number, loop.quit)

    def on_stdin(channel, condition):
        # End of input (or an error) means the parent is gone.
        if condition & (GLib.IO_HUP | GLib.IO_ERR) or not channel.read_line()[1]:
            loop.quit()
            return False
        return True

    stdin = GLib.IOChannel.unix_new(sys.stdin.fileno())
    GLib.io_add_watch(stdin, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, on_stdin)
    loop.run()


if __name__ == "__main__":
    main()
