/**
 * The consumer's own conformance bookkeeping: every consumer-side normative rule (actor "consumer"
 * or "both", level MUST or MUST NOT, testable in the simulation) is named by at least one test
 * title in src/consumer. A rule the catalogue adds without a test here fails this file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import catalogue from '../../spec/rules.json' with { type: 'json' };

interface RawRule {
  readonly id: string;
  readonly level: string;
  readonly actor: string;
  readonly testable_in_simulation: boolean;
}

const here = fileURLToPath(new URL('.', import.meta.url));
/** The titles of every `it(...)` in the consumer's test files (template titles included whole). */
const titles = readdirSync(here)
  .filter((f) => f.endsWith('.test.ts'))
  .flatMap((f) => [...readFileSync(`${here}${f}`, 'utf8').matchAll(/\bit\(\s*(`[^`]*`|'[^']*'|"[^"]*")/g)])
  .map((m) => m[1] ?? '')
  .join('\n');

describe('rule coverage', () => {
  it('CETP-9-10 CETP-9-11: every consumer-side MUST / MUST NOT testable in the simulation has a test naming it', () => {
    const rules = (catalogue as RawRule[]).filter(
      (r) =>
        (r.actor === 'consumer' || r.actor === 'both') &&
        (r.level === 'MUST' || r.level === 'MUST NOT') &&
        r.testable_in_simulation,
    );
    expect(rules.length).toBeGreaterThan(60);
    expect(rules.filter((r) => !titles.includes(r.id)).map((r) => r.id)).toEqual([]);
  });
});
