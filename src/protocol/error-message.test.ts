import { describe, expect, it } from 'vitest';
import { checkErrorMessage, findMessageLeaks } from './error-message.ts';
import { expectIssue } from './testing/expect-issue.ts';

describe('CETP-5-02 / 5-25 error messages are safe to show', () => {
  it.each([
    'Could not create the alert. Please try again.',
    'Price must be greater than 0.',
    'Try again in 5 minutes (limit 10/min).',
    'The symbol AAPL is not supported and/or delisted.',
    '价格必须大于 0',
  ])('safe: %j', (message) => {
    expect(findMessageLeaks(message)).toEqual([]);
    expect(checkErrorMessage(message, 'INVALID_ARGS')).toEqual([]);
  });

  it.each([
    ['JS stack', 'Error: boom\n    at createAlert (/app/src/alerts.js:10:5)'],
    ['Java frame', 'failed at com.example.app.AlertRepo.insert(AlertRepo.java:42)'],
    ['exception header', 'java.lang.NullPointerException: Attempt to invoke virtual method'],
    ['TypeError header', "TypeError: Cannot read properties of undefined (reading 'price')"],
    ['plain Error header', 'Error: database is locked'],
    ['Caused by', 'insert failed. Caused by: constraint'],
    ['android data path', 'cannot open /data/data/com.example.app/databases/alerts.db'],
    ['source location', 'assertion failed in AlertRepo.kt:88'],
    ['windows path', 'cannot open C:\\Users\\dev\\alerts.db'],
    ['file URL', 'see file:///sdcard/log.txt'],
  ])('unsafe (%s)', (_what, message) => {
    expect(findMessageLeaks(message).length).toBeGreaterThan(0);
    expectIssue(checkErrorMessage(message, 'INVALID_ARGS'), {
      code: 'unsafe_error_message',
      ruleId: 'CETP-5-02',
    });
  });

  it('an unsafe INTERNAL_ERROR message cites CETP-5-25', () => {
    expectIssue(checkErrorMessage('java.lang.IllegalStateException: bad', 'INTERNAL_ERROR'), {
      code: 'unsafe_error_message',
      ruleId: 'CETP-5-25',
    });
  });

  it.each(['', '   '])('an empty message (%j) is an issue (CETP-5-02)', (message) => {
    expectIssue(checkErrorMessage(message), { code: 'empty_value', ruleId: 'CETP-5-02' });
  });

  it('answers a repeated message the same way, with a list the caller may change', () => {
    const message = 'Error: boom\n    at run (/srv/app/main.js:3:7)';
    const first = findMessageLeaks(message);
    expect(first.length).toBeGreaterThan(1);
    first.length = 0;
    expect(findMessageLeaks(message)).toEqual(findMessageLeaks(`${message}`));
    expect(findMessageLeaks(message).length).toBeGreaterThan(1);
  });
});
