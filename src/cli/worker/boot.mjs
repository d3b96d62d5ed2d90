// A worker thread of the cetp-sim CLI starts here: TypeScript sources (cetp-sim's and the user's
// modules) load through tsx in this thread too, then the worker's own module takes the jobs. The
// hooks of esm-hooks.mjs (registered after tsx's, so they run first) load a user's `.ts` ES module
// as an ES module wherever it lives (with or without a package.json, even "type": "commonjs").
// In an installed package this file sits beside the compiled worker.js (dist/), and tsx is then
// there only for the user's TypeScript modules.
// In a checkout, when the CLI has built the split bundle of these very sources (bundler.mjs), the
// worker's code loads from it first, with Node's own loader (no hooks yet: ~3× cheaper than through
// tsx), and the hooks then resolve every import of a source file of cetp-sim to its entry there.
// No source has a top-level await, so no job message can arrive before the hooks are registered.
import { existsSync, realpathSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';
import { SPLIT_BUNDLE } from './boundary.mjs';
import { freshSplit } from './bundler.mjs';

const compiled = new URL('./worker.js', import.meta.url);
const fresh = existsSync(compiled) || process.env.CETP_SIM_FROM === 'tsx' ? null : freshSplit();
// Its real path, as Node names the modules it loads (node_modules may be a link): the hooks resolve
// to the same URLs, so each module is loaded once.
const split = fresh === null ? null : realpathSync(fresh);
if (split !== null) {
  globalThis[SPLIT_BUNDLE] = split; // for a user's CommonJS require of cetp-sim (module-loader.ts)
  await import(pathToFileURL(join(split, 'src', 'cli', 'worker', 'worker.mjs')).href);
}
register();
registerHooks('./esm-hooks.mjs', import.meta.url, { data: { split } });
if (split === null) await import(existsSync(compiled) ? compiled.href : './worker.ts');
