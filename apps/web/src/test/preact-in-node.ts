import { registerHooks } from 'node:module';
import { reactToPreact } from '../../preact-compat.ts';

// Vitest leaves packages in node_modules to Node (TanStack Query, Testing Library,
// which `require`s React), out of reach of Vite's aliases; this resolve hook gives them Preact as
// the build does, so one copy of Preact renders everything. Once per worker process.
const marker = Symbol.for('farmcam.preact-in-node');
const globals = globalThis as { [marker]?: true };
if (!globals[marker]) {
  globals[marker] = true;
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      nextResolve(reactToPreact[specifier] ?? specifier, context),
  });
}
