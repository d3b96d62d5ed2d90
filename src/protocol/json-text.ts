/**
 * Whether a text is JSON, remembered for long texts (issue 37). The malformed property sends the
 * same hostile args run after run — 20,000-deep arrays, args padded to max_request_bytes — and the
 * provider's reader and several oracles each asked `JSON.parse` again (a deep array costs ~1.6 ms).
 * The answer is a pure function of the text, so a hit and a miss agree (src/base/caches.ts).
 */
import { caches } from '../base/caches.ts';

/** Texts from this length on are remembered; at most 64 of them (most are ≤ 64 KB). */
export const LONG_JSON_TEXT = 4_096;
const verdicts = caches.memo<string, boolean>('protocol/json-text: long texts that parse as JSON', 64);

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** `JSON.parse(text)` would not throw. */
export function isJsonText(text: string): boolean {
  return text.length < LONG_JSON_TEXT ? parses(text) : verdicts.get(text, parses);
}
