/**
 * A patched copy of the scratch agent: every source file of examples/scratch-agent/ copied to a
 * fresh temporary directory (imports of cetp-sim made absolute), with one mistake's `find`
 * replaced. The `find` must occur exactly once — a patch that no longer applies is an error, not a
 * silently correct "variant".
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Mistake } from './catalogue.ts';

const EXAMPLE = fileURLToPath(new URL('..', import.meta.url));
const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

export function patchCount(mistake: Mistake): number {
  const text = readFileSync(join(EXAMPLE, mistake.file), 'utf8');
  return text.split(mistake.find).length - 1;
}

/** The directories this process wrote variants into (removeVariants deletes them, and only them). */
const written: string[] = [];

/** Deletes every variant directory this process wrote. */
export function removeVariants(): void {
  for (const dir of written.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes the variant; returns the path of its `agent.consumer.ts`. */
export function writeVariant(mistake: Mistake): string {
  const count = patchCount(mistake);
  if (count !== 1)
    throw new Error(`mistake ${mistake.id}: its find occurs ${count} times in ${mistake.file}`);
  const dir = mkdtempSync(join(tmpdir(), `scratch-${mistake.id}-`));
  written.push(dir);
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n'); // ES modules, as here
  for (const name of readdirSync(EXAMPLE)) {
    if (!name.endsWith('.ts') || name.endsWith('.test.ts')) continue;
    let text = readFileSync(join(EXAMPLE, name), 'utf8').replaceAll("'../../src/", `'${SRC}`);
    if (name === mistake.file) text = text.replace(mistake.find, () => mistake.replace);
    writeFileSync(join(dir, name), text);
  }
  return join(dir, 'agent.consumer.ts');
}
