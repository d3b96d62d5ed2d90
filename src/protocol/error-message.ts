/**
 * Is an error_message safe to show a user (CETP-5-02) — in particular, free of stack traces and
 * internals (CETP-5-25)? A heuristic: it looks for what leaks in practice — exception headers, stack
 * frames, file-system paths and source locations.
 */
import { caches } from '../base/caches.ts';
import type { ErrorCode } from './errors.ts';
import { issue, type ProtocolIssue } from './issues.ts';

interface LeakPattern {
  readonly what: string;
  readonly re: RegExp;
}

export const UNSAFE_MESSAGE_PATTERNS: readonly LeakPattern[] = Object.freeze([
  { what: 'a JavaScript stack frame', re: /\n\s*at\s/ },
  { what: 'a Java/Kotlin stack frame', re: /\bat\s+[\w$.]+\([\w$]+\.(?:java|kt):\d+\)/ },
  { what: 'an exception header', re: /\b(?:[A-Za-z_$][\w$.]*)?(?:Error|Exception|Throwable)\s*:/ },
  { what: 'a "Caused by" chain', re: /\bCaused by:/ },
  { what: 'a source location', re: /\.(?:java|kt|js|ts|mjs|cjs|py|c|cc|cpp):\d+/ },
  { what: 'an absolute Unix path', re: /(?:^|[\s'"(=])\/(?:[\w.@-]+\/)+[\w.@-]+/ },
  { what: 'a Windows path', re: /\b[A-Za-z]:\\[\w.@-]+/ },
  { what: 'a file URL', re: /\bfile:\/\//i },
]);

/** The leaks found in `message`, by description. */
export function findMessageLeaks(message: string): string[] {
  return [...leaksByMessage.get(message, leaksIn)];
}

/** Answers by message: providers send the same few messages again and again. */
const leaksByMessage = caches.memo<string, readonly string[]>(
  'protocol/error-message: leaks by message',
  512,
);

function leaksIn(message: string): readonly string[] {
  return Object.freeze(UNSAFE_MESSAGE_PATTERNS.filter((p) => p.re.test(message)).map((p) => p.what));
}

export function checkErrorMessage(
  message: string,
  code?: ErrorCode | string,
  path = 'error_message',
): ProtocolIssue[] {
  if (message.trim() === '') {
    return [
      issue('empty_value', 'error_message must be a non-empty user-facing description', ['CETP-5-02'], path),
    ];
  }
  const leaks = findMessageLeaks(message);
  if (leaks.length === 0) return [];
  return [
    issue(
      'unsafe_error_message',
      `error_message looks unsafe to show a user: it contains ${leaks.join(', ')}`,
      code === 'INTERNAL_ERROR' ? ['CETP-5-02', 'CETP-5-25'] : ['CETP-5-02'],
      path,
    ),
  ];
}
