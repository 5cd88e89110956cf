import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkLocalCameraRequirements,
  createLocalCamera,
  describeMissing,
  readSystemRequirements,
  type SystemRequirement,
} from './local-camera.ts';

describe('the local camera’s system requirements', () => {
  let directory: string;
  /** The real list plus one element no GStreamer has, as if its package were not installed. */
  let withMissingElement: string;

  beforeAll(async () => {
    directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-requirements-'));
    withMissingElement = path.join(directory, 'requirements.json');
    const missing: SystemRequirement = {
      kind: 'element',
      name: 'farmcamnosuchelement',
      package: 'gstreamer1.0-farmcam-nothing',
      for: 'camera',
    };
    await fs.promises.writeFile(
      withMissingElement,
      JSON.stringify({ requirements: [...readSystemRequirements(), missing] }),
    );
  });

  afterAll(async () => {
    await fs.promises.rm(directory, { recursive: true, force: true });
  });

  it('names a Debian package for every requirement', () => {
    for (const requirement of readSystemRequirements()) {
      expect(requirement.package).toMatch(/^[a-z0-9][a-z0-9.+-]+$/);
      expect(['binary', 'file', 'python-module', 'typelib', 'element']).toContain(requirement.kind);
    }
  });

  it('finds everything on this machine (the livestream suites need it too)', async () => {
    expect(await checkLocalCameraRequirements()).toEqual({
      problem: null,
      missing: [],
      packages: [],
    });
  });

  it('names a missing GStreamer element and the package to install', async () => {
    const status = await checkLocalCameraRequirements({ requirementsPath: withMissingElement });
    expect(status.problem).toBe(
      "The demo camera cannot run on this server: GStreamer's farmcamnosuchelement is missing (install gstreamer1.0-farmcam-nothing).",
    );
    expect(status.missing.map((requirement) => requirement.name)).toEqual(['farmcamnosuchelement']);
    expect(status.packages).toEqual(['gstreamer1.0-farmcam-nothing']);
  });

  it('without Python, asks for it and for everything it could not look up', async () => {
    const status = await checkLocalCameraRequirements({
      pythonPath: path.join(directory, 'no-python-here'),
    });
    expect(status.problem).toMatch(/^The demo camera cannot run on this server: no-python-here is/);
    expect(status.packages).toEqual(
      expect.arrayContaining([
        'python3',
        'python3-gi',
        'gstreamer1.0-x',
        'gir1.2-gst-rtsp-server-1.0',
      ]),
    );
  });

  it('lists several missing things in one sentence', () => {
    const requirement = (kind: SystemRequirement['kind'], name: string, packageName: string) =>
      ({ kind, name, package: packageName, for: 'camera' }) as const;
    expect(
      describeMissing(
        [
          requirement('python-module', 'gi', 'python3-gi'),
          requirement('typelib', 'GstRtspServer-1.0', 'gir1.2-gst-rtsp-server-1.0'),
          requirement('element', 'clockoverlay', 'gstreamer1.0-x'),
          requirement('element', 'x264enc', 'gstreamer1.0-plugins-ugly'),
        ],
        ['python3-gi', 'gir1.2-gst-rtsp-server-1.0', 'gstreamer1.0-x', 'gstreamer1.0-plugins-ugly'],
      ),
    ).toBe(
      "The demo camera cannot run on this server: Python's gi module, the GstRtspServer-1.0 GObject bindings and GStreamer's clockoverlay, x264enc are missing (install python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-x gstreamer1.0-plugins-ugly).",
    );
  });

  it('refuses to start with that sentence, and reports it from check()', async () => {
    const camera = createLocalCamera({ port: 0, requirementsPath: withMissingElement });
    await expect(camera.ensureRunning()).rejects.toThrow(
      "GStreamer's farmcamnosuchelement is missing (install gstreamer1.0-farmcam-nothing)",
    );
    expect((await camera.check()).packages).toEqual(['gstreamer1.0-farmcam-nothing']);
    await camera.stop();
  });
});
