/**
 * Where each switchable rule is enforced: in the provider SDK, the reference consumer, or both — read
 * from the `gates.on('CETP-…')` calls, as src/fuzz/hunt.ts's ablatableRules does. An ablated rule
 * enforced only by the consumer cannot be caught by properties that do not run the consumer, and the
 * ablation report says so.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export type GateSite = 'provider' | 'consumer';

const SITES: readonly { site: GateSite; dir: string }[] = [
  { site: 'provider', dir: 'src/providers/sdk' },
  { site: 'consumer', dir: 'src/consumer' },
];

function sources(dir: string, out: string[] = []): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out; // a component that is not there has no enforcement points
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sources(path, out);
    // .ts in a checkout, the compiled .js in an installed package (never tests or declarations)
    else if (/\.[jt]s$/.test(entry) && !/\.(test|d)\.ts$/.test(entry)) out.push(path);
  }
  return out;
}

/** rule id → the components with an enforcement point for it. */
export function gateSites(root: string): Map<string, GateSite[]> {
  const sites = new Map<string, GateSite[]>();
  for (const { site, dir } of SITES) {
    for (const file of sources(join(root, dir))) {
      for (const call of readFileSync(file, 'utf8').matchAll(/gates\.on\(([^)]*)\)/g)) {
        for (const id of (call[1] ?? '').matchAll(/CETP-[\d.]+-\d{2}/g)) {
          const list = sites.get(id[0]) ?? [];
          if (!list.includes(site)) list.push(site);
          sites.set(id[0], list);
        }
      }
    }
  }
  return sites;
}
