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
  normalizeUuid,
} from './names.ts';
import { expectIssue } from './testing/expect-issue.ts';

describe('CETP-3.1-03 tool names match [a-z][a-z0-9_]{0,63}', () => {
  it.each([
    ['create_alert', true],
    ['a', true],
    [`a${'b'.repeat(63)}`, true],
    [`a${'b'.repeat(64)}`, false],
    ['Create_alert', false],
    ['1tool', false],
    ['_tool', false],
    ['tool-name', false],
    ['tool.name', false],
    ['', false],
    ['tool\n', false],
    ['工具', false],
  ])('%j → %s', (name, valid) => {
    expect(isToolName(name)).toBe(valid);
    expect(checkToolName(name)).toHaveLength(valid ? 0 : 1);
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
  it.each([
    ['alerts.write', true],
    ['a-b_c.d', true],
    [`a${'b'.repeat(127)}`, true],
    [`a${'b'.repeat(128)}`, false],
    ['Alerts.write', false],
    ['.alerts', false],
    ['alerts write', false],
    ['', false],
  ])('%j → %s', (name, valid) => {
    expect(isScopeName(name)).toBe(valid);
    if (!valid) expectIssue(checkScopeName(name), { code: 'invalid_scope_name', ruleId: 'CETP-3.2-03' });
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

  it.each([
    ['com.example.app', true],
    ['a.b', true],
    ['com', false],
    ['com.1example', false],
    ['com..example', false],
  ])('isPackageName(%s) = %s', (name, valid) => {
    expect(isPackageName(name)).toBe(valid);
  });
});

describe('CETP-4.1-03 request_id is a UUID', () => {
  it.each([
    ['6f9619ff-8b86-4011-b42d-00c04fc964ff', true],
    ['6F9619FF-8B86-4011-B42D-00C04FC964FF', true],
    ['00000000-0000-0000-0000-000000000000', true],
    ['6f9619ff8b864011b42d00c04fc964ff', false],
    ['{6f9619ff-8b86-4011-b42d-00c04fc964ff}', false],
    ['6f9619ff-8b86-4011-b42d-00c04fc964f', false],
    ['6f9619ff-8b86-4011-b42d-00c04fc964fg', false],
    [' 6f9619ff-8b86-4011-b42d-00c04fc964ff', false],
    ['req-1', false],
    ['', false],
  ])('%j → %s', (id, valid) => {
    expect(isUuid(id)).toBe(valid);
    if (!valid)
      expectIssue(checkRequestId(id), { code: 'invalid_uuid', ruleId: 'CETP-4.1-03', path: 'request_id' });
  });

  it('normalizes case for dedup keys', () => {
    expect(normalizeUuid('6F9619FF-8B86-4011-B42D-00C04FC964FF')).toBe(
      '6f9619ff-8b86-4011-b42d-00c04fc964ff',
    );
  });
});
