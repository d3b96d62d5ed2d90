/**
 * A v2 call that carries no session (the key absent, or an empty string) is answered
 * NEGOTIATION_REQUIRED with retryable=true (CETP-5-07): the client must negotiate and may then send
 * the same call again — not INVALID_REQUEST, which tells it the request itself is wrong. Judged only
 * on calls whose envelope is otherwise well formed (read with a stand-in session, it passes
 * readEnvelope): with a second flaw the provider may report that one instead.
 */
import { type BundleReader, readEnvelope, V2_METHODS, type V2MethodName } from '../../protocol/index.ts';
import type { Checker } from '../checker.ts';
import { consistency, judgeEach, PROVIDER_CALLS } from '../checker-kit.ts';
import type { CallView } from '../observation.ts';

/** `b` with a non-empty session_token String in place of whatever it had. */
function withSession(b: BundleReader): BundleReader {
  const key = 'session_token';
  return {
    containsKey: (k) => k === key || b.containsKey(k),
    keySet: () => [...new Set([...b.keySet(), key])],
    typeOf: (k) => (k === key ? 'String' : b.typeOf(k)),
    getInt: (k, d) => b.getInt(k, d),
    getLong: (k, d) => b.getLong(k, d),
    getString: (k) => (k === key ? 'stand-in-session' : b.getString(k)),
    getBoolean: (k, d) => b.getBoolean(k, d),
    getIntArray: (k) => b.getIntArray(k),
  };
}

/** A v2 call of a protocol method other than negotiate, without a session and with no other flaw. */
function sessionless(c: CallView): boolean {
  if (!c.v2 || c.method === 'negotiate' || !(c.method in V2_METHODS) || c.request === null) return false;
  const r = c.request;
  const type = r.typeOf('session_token');
  // Absent, or an empty String. A String key holding null is a null where a token belongs: a
  // malformed envelope, which a provider may refuse as such (INVALID_REQUEST).
  const missing = type === null || (type === 'String' && r.getString('session_token') === '');
  return missing && readEnvelope(withSession(r), c.method as V2MethodName).ok;
}

export const sessionRequired = judgeEach(PROVIDER_CALLS, {
  id: 'session-required',
  ruleIds: ['CETP-5-07'],
  description:
    'A v2 call without a session (absent or empty session_token, nothing else wrong) is answered NEGOTIATION_REQUIRED with retryable=true.',
  fields: [
    consistency(
      'whether the request carried a session at all',
      'req:*:session_token',
      'res:error:error_code',
      'res:error:retryable',
    ),
  ],
  judge(c) {
    if (c.reply.kind !== 'bundle' || !sessionless(c)) return;
    const { errorCode, retryable, status } = c.reply;
    if (errorCode === 'NEGOTIATION_REQUIRED' && retryable === true) return;
    const answer = errorCode === null ? String(status) : `${errorCode} (retryable=${String(retryable)})`;
    return `${c.method} without a session was answered ${answer}, not NEGOTIATION_REQUIRED retryable`;
  },
});

export const SESSION_CHECKERS: readonly Checker[] = [sessionRequired];
