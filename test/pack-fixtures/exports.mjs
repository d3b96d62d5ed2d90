// What the package's "exports" let a user import (printed as JSON for test/pack.test.ts).
import { createRequire } from 'node:module';

const seen = {};
const cetpSim = await import('cetp-sim');
seen.world = typeof cetpSim.World;
seen.version = createRequire(import.meta.url)('cetp-sim/package.json').version;
try {
  await import('cetp-sim/dist/src/cli/main.js');
  seen.deep = 'loaded';
} catch (error) {
  seen.deep = error.code;
}
try {
  seen.vitest = typeof (await import('cetp-sim/vitest'));
} catch (error) {
  seen.vitest = error.code;
}
console.log(JSON.stringify(seen));
