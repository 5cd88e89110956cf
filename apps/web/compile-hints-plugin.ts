import type { Plugin } from 'vite';

/**
 * V8's explicit compile hint (Chrome 136+): a script whose first line is this comment has every
 * function compiled while it streams in, on a background thread, instead of each function being
 * compiled on the main thread the first time it is called. For the portal's first render that
 * was a good part of the blocking time on a slow phone (decision 173).
 */
export const compileHint = '//# allFunctionsCalledOnLoad';

/**
 * Chunks this size or smaller carry the hint: the entry, the shared components and each page,
 * most of whose functions run when it opens. The video player and the chart library do not: a
 * page loads them only when needed, and runs little of them at once.
 */
export const compileHintMaxBytes = 150_000;

/** Puts the compile hint on the first line of each chunk up to `compileHintMaxBytes`. */
export function compileHints(): Plugin {
  return {
    name: 'farmcam-compile-hints',
    apply: 'build',
    generateBundle: {
      // After Vite's own import analysis, which may still put a line at the top.
      order: 'post',
      handler(_options, bundle) {
        for (const output of Object.values(bundle)) {
          if (output.type !== 'chunk' || output.code.length > compileHintMaxBytes) continue;
          output.code = `${compileHint}\n${output.code}`;
          // Every generated line moves down one: so do the source map's. Rolldown has already
          // put the map in the bundle as a file of its own by now, and writes that file, not the
          // chunk's `map`: both move.
          if (output.map) output.map.mappings = `;${output.map.mappings}`;
          const mapFile = bundle[`${output.fileName}.map`];
          if (mapFile?.type === 'asset' && typeof mapFile.source === 'string') {
            const map = JSON.parse(mapFile.source) as { mappings: string };
            map.mappings = `;${map.mappings}`;
            mapFile.source = JSON.stringify(map);
          }
        }
      },
    },
  };
}
