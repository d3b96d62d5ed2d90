/**
 * Byte-level helpers the protocol's checks share: UTF-8 length (max_request_bytes, CETP-4.1-08;
 * session_token ≤ 256 bytes, CETP-2.2-08), lowercase SHA-256 (file results, CETP-4.5-03), and the args
 * digest that dedup records (CETP-6-03) and resume tokens (CETP-4.3-14) bind.
 */
import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { caches } from '../base/caches.ts';
import { fail, issue, ok, type WireResult } from './issues.ts';

/** Lowercase hex SHA-256 of bytes, or of a string's UTF-8 encoding. */
export function sha256Hex(input: Uint8Array | string): string {
  // Short strings (args, small results) recur run after run: remember them.
  return typeof input === 'string' && input.length <= MEMO_MAX_CHARS
    ? digests.get(input, hexDigest)
    : hexDigest(input);
}

const MEMO_MAX_CHARS = 1_024;
const digests = caches.memo<string, string>('protocol/digest: SHA-256 of short texts', 4_096);

function hexDigest(input: Uint8Array | string): string {
  // crypto.hash: the one-shot form (Node ≥ 20.12), much cheaper than a Hash object for short input.
  return hash('sha256', input, 'hex');
}

/** The UTF-8 byte length of a string (a lone surrogate encodes as U+FFFD, 3 bytes). */
export function utf8Length(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/**
 * How args are digested (NOTES 6):
 * - 'bytes' (the reference reading): the exact UTF-8 bytes; a consumer must re-send byte-identical
 *   args on a retry or resume, and any re-serialization counts as different content (CETP-6-04).
 * - 'jcs' (a named variant): the RFC 8785 canonical form, so key order and number spelling do not
 *   matter; invalid JSON has no canonical form and is an issue.
 */
export type ArgsDigestMode = 'bytes' | 'jcs';

export function argsDigest(argsJson: string, mode: ArgsDigestMode): WireResult<string> {
  if (mode === 'bytes') return ok(sha256Hex(argsJson));
  let canonical: string | undefined;
  try {
    canonical = canonicalize(JSON.parse(argsJson));
  } catch (e) {
    const why =
      e instanceof SyntaxError ? 'args is not valid JSON' : `args has no canonical form: ${String(e)}`;
    return fail([issue('invalid_json', why, ['CETP-4.1-06', 'CETP-6-03'], 'args')]);
  }
  if (canonical === undefined) {
    return fail([issue('invalid_json', 'args has no canonical form', ['CETP-4.1-06', 'CETP-6-03'], 'args')]);
  }
  return ok(sha256Hex(canonical));
}
