import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../protocol/index.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const apps = fileURLToPath(new URL('../apps/', import.meta.url));

/** Issue "provider SDK": every error code is produced by some provider test (asserted as `error:CODE`). */
describe('error code coverage', () => {
  it('CETP-5-01: each of the 19 error codes is asserted as a provider reply by some conformance or app test', () => {
    const sources = [
      ...readdirSync(here)
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => readFileSync(`${here}${f}`, 'utf8')),
      ...readdirSync(apps)
        .filter((f) => f.endsWith('.test.ts'))
        .map((f) => readFileSync(`${apps}${f}`, 'utf8')),
    ].join('\n');
    const missing = ERROR_CODES.filter((code) => !sources.includes(`error:${code}`));
    expect(ERROR_CODES).toHaveLength(19);
    expect(missing).toEqual([]);
  });
});
