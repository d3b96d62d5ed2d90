/**
 * Runs a regression replay of this folder (a failing run a campaign found, kept as a test) against
 * the property it was found in, with the current code.
 */
import { readFileSync } from 'node:fs';
import { type ReplayFile, replayScenario } from '../../src/fuzz/fuzz.ts';
import { type PropertyDef, propertyById } from '../../src/fuzz/suites.ts';

export function replayRegression(property: string, file: string): ReturnType<typeof replayScenario> {
  const def = propertyById(property) as PropertyDef | undefined;
  if (!def) throw new Error(`no property ${property}`);
  const replay = JSON.parse(readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')) as ReplayFile;
  return replayScenario(def, replay);
}
