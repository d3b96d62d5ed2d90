// A worker thread of the cetp-sim CLI starts here: TypeScript sources (cetp-sim's and the user's
// modules) load through tsx in this thread too, then the worker's own module takes the jobs. The
// hooks of esm-hooks.mjs (registered after tsx's, so they run first) load a user's `.ts` ES module
// as an ES module wherever it lives (with or without a package.json, even "type": "commonjs").
// In an installed package this file sits beside the compiled worker.js (dist/), and tsx is then
// there only for the user's TypeScript modules.
import { existsSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { register } from 'tsx/esm/api';

register();
registerHooks('./esm-hooks.mjs', import.meta.url);
const compiled = new URL('./worker.js', import.meta.url);
await import(existsSync(compiled) ? compiled.href : './worker.ts');
