import { describe, expect, it } from 'vitest';
import * as protocol from './index.ts';

describe('public surface', () => {
  it.each([
    'allRules',
    'getRule',
    'isRuleId',
    'V2_METHODS',
    'CAPABILITIES',
    'BUNDLE_KEYS',
    'readEnvelope',
    'writeRequest',
    'ERROR_CODE_TABLE',
    'retryableFor',
    'writeErrorBundle',
    'readErrorBundle',
    'readResponseBundle',
    'checkAnnotationConsistency',
    'checkLimits',
    'checkProviderId',
    'validateWire',
    'WIRE_SCHEMAS',
    'SPEC_EXAMPLES',
    'ToolSchemaCompiler',
    'checkToolList',
    'argsDigest',
    'sha256Hex',
    'withoutDisabledRules',
  ])('exports %s', (name) => {
    expect(protocol).toHaveProperty(name);
  });

  it('does not export test helpers', () => {
    expect(protocol).not.toHaveProperty('MapBundle');
    expect(protocol).not.toHaveProperty('patched');
  });
});
