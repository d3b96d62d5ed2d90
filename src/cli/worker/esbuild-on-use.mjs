// esbuild's JavaScript API, required when first called (lazy-esbuild.mjs gives this module to tsx
// in place of esbuild): the same names, each calling the real esbuild — the file the import would
// have loaded (`?esbuild=<its URL>`), so the same instance — and its version read from its
// package.json, as esbuild's own `version` is.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const real = new URL(import.meta.url).searchParams.get('esbuild');
const file = real === null ? null : fileURLToPath(real);
const esbuild = () => createRequire(import.meta.url)(file ?? 'esbuild');
const onUse =
  (name) =>
  (...args) =>
    esbuild()[name](...args);

export const version = createRequire(file ?? import.meta.url)(
  file === null ? 'esbuild/package.json' : '../package.json',
).version;
export const build = onUse('build');
export const buildSync = onUse('buildSync');
export const context = onUse('context');
export const transform = onUse('transform');
export const transformSync = onUse('transformSync');
export const formatMessages = onUse('formatMessages');
export const formatMessagesSync = onUse('formatMessagesSync');
export const analyzeMetafile = onUse('analyzeMetafile');
export const analyzeMetafileSync = onUse('analyzeMetafileSync');
export const initialize = onUse('initialize');
export const stop = onUse('stop');
export default {
  version,
  build,
  buildSync,
  context,
  transform,
  transformSync,
  formatMessages,
  formatMessagesSync,
  analyzeMetafile,
  analyzeMetafileSync,
  initialize,
  stop,
};
