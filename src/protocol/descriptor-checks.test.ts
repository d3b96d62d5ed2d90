import { describe, expect, it } from 'vitest';
import { checkProviderInfo, checkToolDescriptor, checkToolList } from './descriptor-checks.ts';
import { SPEC_EXAMPLES } from './schemas/spec-examples.ts';
import { expectIssue, issuesOf, okValue } from './testing/expect-issue.ts';
import { patched } from './testing/json-patch.ts';
import { ToolSchemaCompiler } from './tool-schema.ts';

const providerInfo = () => JSON.parse(SPEC_EXAMPLES.provider_info.json);
const toolList = () => JSON.parse(SPEC_EXAMPLES.list_tools_response.json);
const createAlert = () => toolList().tools[0];
const ASYNC = { negotiatedCapabilities: ['async_operations'], compiler: new ToolSchemaCompiler() };

describe('checkProviderInfo (§3.2)', () => {
  it('accepts the spec example from its own package', () => {
    expect(okValue(checkProviderInfo(providerInfo(), { packageName: 'com.example.app' })).provider_id).toBe(
      'com.example.app',
    );
  });

  it('a provider_id outside the package namespace is an issue (CETP-3.1-02)', () => {
    expectIssue(issuesOf(checkProviderInfo(providerInfo(), { packageName: 'com.example.app.lite' })), {
      code: 'provider_id_outside_namespace',
      ruleId: 'CETP-3.1-02',
      path: '/provider_id',
    });
  });

  it('a schema_dialect other than Draft 2020-12 is unsupported (CETP-3.2-07)', () => {
    const info = { ...providerInfo(), schema_dialect: 'http://json-schema.org/draft-07/schema#' };
    expectIssue(issuesOf(checkProviderInfo(info)), { code: 'unsupported_dialect', ruleId: 'CETP-3.2-07' });
  });

  it('a scope declared twice is an issue (CETP-3.2-02)', () => {
    const info = providerInfo();
    info.scopes.push({ ...info.scopes[0] });
    expectIssue(issuesOf(checkProviderInfo(info)), { code: 'duplicate_name', path: '/scopes/1/name' });
  });

  it('an unknown sensitivity is not ignored (CETP-3.2-12)', () => {
    const info = providerInfo();
    info.scopes[0].sensitivity = 'secret';
    expectIssue(issuesOf(checkProviderInfo(info)), {
      code: 'unknown_enum_value',
      ruleId: 'CETP-3.2-12',
      path: '/scopes/0/sensitivity',
    });
  });
});

describe('checkToolDescriptor (§3.3, §3.4)', () => {
  it('accepts the spec example in a session with async_operations and its scope catalogue', () => {
    expect(checkToolDescriptor(createAlert(), { ...ASYNC, scopeNames: ['alerts.write'] }).ok).toBe(true);
  });

  it('the spec example is inconsistent in a session without async_operations (CETP-3.4-10)', () => {
    expectIssue(issuesOf(checkToolDescriptor(createAlert(), { negotiatedCapabilities: [] })), {
      code: 'async_not_negotiated',
      path: '/annotations/execution',
    });
  });

  it.each([
    [
      'a risk=high tool without confirmation=always',
      '/annotations/risk',
      'high',
      'inconsistent_confirmation',
      '/annotations/confirmation',
    ],
    [
      'a network $ref in input_schema',
      '/input_schema/properties/symbol',
      { $ref: 'https://x/s' },
      'external_ref',
      '/input_schema/properties/symbol/$ref',
    ],
    [
      'a draft-07 output_schema',
      '/output_schema/$schema',
      'http://json-schema.org/draft-07/schema#',
      'dialect_mismatch',
      '/output_schema/$schema',
    ],
    ['an undeclared scope', '/scopes/1', 'payments.write', 'undeclared_scope', '/scopes/1'],
    ['an invalid scope name', '/scopes/0', 'Alerts', 'pattern_mismatch', '/scopes/0'],
    ['an invalid tool name', '/name', 'Create Alert', 'pattern_mismatch', '/name'],
    ['an input_schema that is not an object', '/input_schema', 'any', 'wrong_type', '/input_schema'],
  ])('%s is an issue', (_name, pointer, replacement, code, path) => {
    const tool = patched(createAlert(), pointer, replacement);
    expectIssue(issuesOf(checkToolDescriptor(tool, { ...ASYNC, scopeNames: ['alerts.write'] })), {
      code,
      path,
    });
  });
});

describe('checkToolList: one bad tool is dropped, the others kept', () => {
  it('keeps every valid tool of the spec example', () => {
    const result = checkToolList(toolList(), ASYNC);
    expect(result.revision).toBe('tools-42');
    expect(result.accepted.map((t) => t.name)).toEqual(['create_alert']);
    expect(result.rejected).toEqual([]);
    expect(result.issues).toEqual([]);
  });

  it('rejects a tool with an unknown effect but keeps its neighbours (CETP-3.2-12)', () => {
    const list = toolList();
    const bad = {
      ...createAlert(),
      name: 'archive_alert',
      annotations: { ...createAlert().annotations, effect: 'archive' },
    };
    list.tools.push(bad);
    const result = checkToolList(list, ASYNC);
    expect(result.accepted.map((t) => t.name)).toEqual(['create_alert']);
    expect(result.rejected).toHaveLength(1);
    expect(result.rejected[0]).toMatchObject({ index: 1, name: 'archive_alert' });
    expectIssue(result.rejected[0]?.issues ?? [], {
      code: 'unknown_enum_value',
      ruleId: 'CETP-3.2-12',
      path: '/tools/1/annotations/effect',
    });
  });

  it('rejects every tool sharing a name (CETP-3.1-04)', () => {
    const list = toolList();
    list.tools.push(createAlert());
    const result = checkToolList(list, ASYNC);
    expect(result.accepted).toEqual([]);
    expect(result.rejected.map((r) => r.index)).toEqual([0, 1]);
    expectIssue(result.rejected[1]?.issues ?? [], { code: 'duplicate_name', ruleId: 'CETP-3.1-04' });
  });

  it('a tool missing a required field is rejected (CETP-3.2-11)', () => {
    const result = checkToolList(patched(toolList(), '/tools/0/output_schema', undefined), ASYNC);
    expectIssue(result.rejected[0]?.issues ?? [], {
      code: 'missing_required',
      ruleId: 'CETP-3.2-11',
      path: '/tools/0/output_schema',
    });
  });

  it.each([
    ['not an object', [], 'wrong_type'],
    ['no revision', { tools: [] }, 'missing_required'],
    ['no tools array', { revision: 'r1', tools: {} }, 'missing_required'],
  ])('a list that is %s is an issue', (_name, value, code) => {
    expectIssue(checkToolList(value, ASYNC).issues, { code });
  });
});
