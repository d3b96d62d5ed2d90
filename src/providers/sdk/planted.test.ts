import { describe, expect, it } from 'vitest';
import { findMessageLeaks } from '../../protocol/error-message.ts';
import { REFERENCE_PARTS } from './parts.ts';
import { plantBugs } from './planted.ts';

describe('planted bug internal-error-leaks-stack', () => {
  it('leaks the stack, but not the directory the code was checked out in (the trace is the same in any clone)', () => {
    const parts = plantBugs(REFERENCE_PARTS, ['internal-error-leaks-stack']);
    const error = new TypeError('boom');
    error.stack =
      'TypeError: boom\n    at transfer (/srv/ci/cetp-sim/src/providers/apps/payments.ts:10:5)\n' +
      '    at file:///tmp/clone/dist/src/providers/sdk/execute/index.js:98:12';
    const ex = { requestId: 'r-1' } as unknown as Parameters<typeof parts.internalError>[0];
    const message = parts.internalError(ex, error).getString('error_message') ?? '';
    expect(message).toContain('at transfer (/<checkout>/src/providers/apps/payments.ts:10:5)');
    expect(message).toContain('at /<checkout>/dist/src/providers/sdk/execute/index.js:98:12');
    expect(message).not.toMatch(/home\/ci|tmp\/clone/);
    expect(findMessageLeaks(message)).toContain('a JavaScript stack frame');
  });
});
