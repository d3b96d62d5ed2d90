import { describe, expect, it } from 'vitest';
import {
  checkProviderId,
  checkRequestId,
  checkScopeName,
  checkToolName,
  isPackageName,
  isProviderIdInNamespace,
  isScopeName,
  isToolName,
  isUuid,
  joinedKey,
  normalizeUuid,
} from './names.ts';
import { itClassifies } from './testing/classifies.ts';
import { expectIssue } from './testing/expect-issue.ts';

describe('CETP-3.1-03 tool names match [a-z][a-z0-9_]{0,63}', () => {
  itClassifies('isToolName', isToolName, {
    accepts: ['create_alert', 'a', `a${'b'.repeat(63)}`],
    rejects: [
      `a${'b'.repeat(64)}`,
      'Create_alert',
      '1tool',
      '_tool',
      'tool-name',
      'tool.name',
      '',
      'tool\n',
      '工具',
    ],
    also: (name, valid) => expect(checkToolName(name)).toHaveLength(valid ? 0 : 1),
  });

  it('an invalid name is an invalid_tool_name issue citing CETP-3.1-03', () => {
    expectIssue(checkToolName('Bad', '/name'), {
      code: 'invalid_tool_name',
      ruleId: 'CETP-3.1-03',
      path: '/name',
    });
  });
});

describe('CETP-3.2-03 scope names match [a-z][a-z0-9_.-]{0,127}', () => {
  itClassifies('isScopeName', isScopeName, {
    accepts: ['alerts.write', 'a-b_c.d', `a${'b'.repeat(127)}`],
    rejects: [`a${'b'.repeat(128)}`, 'Alerts.write', '.alerts', 'alerts write', ''],
    also: (name, valid) => {
      if (!valid) expectIssue(checkScopeName(name), { code: 'invalid_scope_name', ruleId: 'CETP-3.2-03' });
    },
  });
});

describe('CETP-3.1-02 provider_id lies in the package namespace', () => {
  it.each([
    ['com.example.app', 'com.example.app', true],
    ['com.example.app.tools', 'com.example.app', true],
    ['com.example.app.tools.v2', 'com.example.app', true],
    ['com.example.application', 'com.example.app', false], // NOTES "provider_id spoofing"
    ['com.example', 'com.example.app', false],
    ['com.example.app.', 'com.example.app', false],
    ['com.example.app..x', 'com.example.app', false],
    ['com.other.app', 'com.example.app', false],
    ['COM.EXAMPLE.APP', 'com.example.app', false],
  ])('%s under %s → %s', (providerId, pkg, valid) => {
    expect(isProviderIdInNamespace(providerId, pkg)).toBe(valid);
    const issues = checkProviderId(providerId, pkg);
    if (valid) expect(issues).toEqual([]);
    else expectIssue(issues, { code: 'provider_id_outside_namespace', ruleId: 'CETP-3.1-02' });
  });

  itClassifies('isPackageName', isPackageName, {
    accepts: ['com.example.app', 'a.b'],
    rejects: ['com', 'com.1example', 'com..example'],
  });
});

describe('CETP-4.1-03 request_id is a UUID', () => {
  itClassifies('isUuid', isUuid, {
    accepts: [
      '6f9619ff-8b86-4011-b42d-00c04fc964ff',
      '6F9619FF-8B86-4011-B42D-00C04FC964FF',
      '00000000-0000-0000-0000-000000000000',
    ],
    rejects: [
      '6f9619ff8b864011b42d00c04fc964ff',
      '{6f9619ff-8b86-4011-b42d-00c04fc964ff}',
      '6f9619ff-8b86-4011-b42d-00c04fc964f',
      '6f9619ff-8b86-4011-b42d-00c04fc964fg',
      ' 6f9619ff-8b86-4011-b42d-00c04fc964ff',
      'req-1',
      '',
    ],
    also: (id, valid) => {
      if (!valid)
        expectIssue(checkRequestId(id), { code: 'invalid_uuid', ruleId: 'CETP-4.1-03', path: 'request_id' });
    },
  });

  it('normalizes case for dedup keys', () => {
    expect(normalizeUuid('6F9619FF-8B86-4011-B42D-00C04FC964FF')).toBe(
      '6f9619ff-8b86-4011-b42d-00c04fc964ff',
    );
  });
});

describe('joinedKey', () => {
  it('is the concatenation, short or long, and one string per (prefix, long part)', () => {
    expect(joinedKey('p|1|', 'abc')).toBe('p|1|abc');
    const long = 'z'.repeat(1 << 20);
    const key = joinedKey('p|1|', long);
    expect(key).toBe(`p|1|${long}`);
    expect(joinedKey('p|1|', `${'z'.repeat(1 << 19)}${'z'.repeat(1 << 19)}`)).toBe(key);
    expect(joinedKey('p|2|', long)).toBe(`p|2|${long}`);
    expect(joinedKey('p|2|', `y${long.slice(1)}`)).toBe(`p|2|y${long.slice(1)}`);
    for (let i = 0; i < 20; i++) expect(joinedKey(`q${i}|`, long)).toBe(`q${i}|${long}`);
  });
});
