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
import Module, { register as registerHooks } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/** The file a CommonJS module tsx's ES module hooks loaded stands for (tsx's `getOriginalFilePath`). */
function originalFile(request) {
  if (!request.startsWith('data:text/javascript,')) return undefined;
  const query = request.indexOf('?');
  return query < 0 ? undefined : (new URLSearchParams(request.slice(query + 1)).get('filePath') ?? undefined);
}

/**
 * tsx's module hooks, registered as tsx's own `register()` (tsx/esm/api) registers them: the same
 * hooks module (`tsx/esm`, which runs in the hooks thread), source maps on, and CommonJS requests of
 * the files its hooks load named by their own path (tsx's `interopCjsExports`) — without loading
 * that API in this thread, which imports all of tsx and esbuild's JavaScript API for it (~0.09 s
 * of CPU per worker, bench/README.md "boot"). No port: nothing here listens to its loads.
 */
function registerTsx() {
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = (request, ...rest) => {
    const file = originalFile(request);
    if (file) {
      Module._cache[file] = Module._cache[request];
      delete Module._cache[request];
    }
    return resolveFilename(file || request, ...rest);
  };
  process.setSourceMapsEnabled(true);
  // First, so that tsx's hooks module loads through it: its esbuild is loaded on first use.
  registerHooks('./lazy-esbuild.mjs', import.meta.url);
  registerHooks(import.meta.resolve('tsx/esm'), { data: {} });
}

registerTsx();
registerHooks('./esm-hooks.mjs', import.meta.url, { data: { split } });
if (split === null) await import(existsSync(compiled) ? compiled.href : './worker.ts');
