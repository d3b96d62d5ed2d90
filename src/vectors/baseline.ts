/**
 * A baseline of expected failures (`vectors run --baseline FILE`): vector ids a known-incomplete
 * implementation fails today, each with a reason. An entry that passes — or names no vector — is
 * stale and fails the run, so the baseline only ever shrinks (the MCP conformance kit's rule).
 */
import { caches } from '../base/caches.ts';
import { Ajv2020 } from '../protocol/schemas/ajv.ts';
import { bestError, CorpusError } from './corpus.ts';
import { FileRefused, readUserFile } from './files.ts';
import { BASELINE_SCHEMA } from './schemas.ts';

/** Expected failures: vector id → reason. */
export type Baseline = ReadonlyMap<string, string>;

/** Compiled on first use, not at import. */
const validator = caches.lazy('vectors/baseline: validator', () =>
  new Ajv2020({ strict: false, allErrors: true }).compile(BASELINE_SCHEMA),
);

export function loadBaseline(path: string): Baseline {
  let text: string;
  try {
    text = readUserFile(path).toString('utf8');
  } catch (error) {
    if (error instanceof FileRefused)
      throw new CorpusError([{ file: path, path: '$', message: error.reason }]);
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CorpusError([{ file: path, path: '$', message: `not JSON: ${(error as Error).message}` }]);
  }
  const validate = validator.get();
  if (!validate(value)) throw new CorpusError([{ file: path, ...bestError(validate.errors ?? []) }]);
  const entries = (value as { expected_failures: { id: string; reason: string }[] }).expected_failures;
  const baseline = new Map<string, string>();
  entries.forEach((e, i) => {
    if (baseline.has(e.id))
      throw new CorpusError([
        { file: path, path: `$.expected_failures[${i}].id`, message: `${e.id} is listed twice` },
      ]);
    baseline.set(e.id, e.reason);
  });
  return baseline;
}
