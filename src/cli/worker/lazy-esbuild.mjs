// Module hooks that make tsx load esbuild's JavaScript API on first use. tsx's hooks module imports
// esbuild statically (`version`, `transformSync`, `transform`), so every worker's hooks thread
// loaded that API (~0.03 – 0.05 s of CPU) even when tsx transformed nothing there: tsx keeps the
// files it compiled in a cache of its own, and a cached file needs no esbuild. boot.mjs registers
// these hooks before tsx's, so that tsx's own modules load through them: an import of 'esbuild'
// from tsx's files becomes esbuild-on-use.mjs, which stands for the very file it would have been.
const TSX = /\/node_modules\/tsx\//;
const ON_USE = new URL('./esbuild-on-use.mjs', import.meta.url);

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (specifier !== 'esbuild' || !TSX.test(context.parentURL ?? '') || !resolved.url.startsWith('file:'))
    return resolved;
  const url = new URL(ON_USE);
  url.searchParams.set('esbuild', resolved.url);
  return { url: url.href, format: 'module', shortCircuit: true };
}
