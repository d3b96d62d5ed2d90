import { describe, expect, it } from 'vitest';
import { Ajv2020 } from './schemas/ajv.ts';
import { DRAFT_2020_12 } from './schemas/core.ts';
import { expectIssue, issuesOf, okValue } from './testing/expect-issue.ts';
import { checkSchemaDialect, checkToolSchema, ToolSchemaCompiler } from './tool-schema.ts';

const compiler = new ToolSchemaCompiler();
const INPUT = {
  type: 'object',
  properties: { symbol: { type: 'string' }, price: { type: 'number', exclusiveMinimum: 0 } },
  required: ['symbol', 'price'],
  additionalProperties: false,
};

/** `{ [keyword]: value, type: 'object' }` has the issue `code` of rule `ruleId` at `/keyword`. */
function expectKeywordIssue(keyword: string, value: unknown, code: string, ruleId: string): void {
  expectIssue(compiler.check({ [keyword]: value, type: 'object' }), { code, ruleId, path: `/${keyword}` });
}

describe('tool schemas that are fine', () => {
  it.each([
    ['the spec input_schema', INPUT],
    ['with $schema = Draft 2020-12', { $schema: DRAFT_2020_12, type: 'object' }],
    ['a boolean schema', true],
    [
      'a same-document $ref',
      { $defs: { p: { type: 'number' } }, properties: { price: { $ref: '#/$defs/p' } } },
    ],
    ['an anchor $ref', { $defs: { p: { $anchor: 'price', type: 'number' } }, items: { $ref: '#price' } }],
    ['a urn $id', { $id: 'urn:example:alert', type: 'object' }],
    ['a property named $ref', { type: 'object', properties: { $ref: { type: 'string' } } }],
    [
      '$ref-like data in enum/const',
      { enum: [{ $ref: 'https://evil.example/x' }], const: { $id: 'http://x' } },
    ],
    ['an unknown keyword and format', { type: 'string', format: 'date-time', 'x-ui': { $ref: 'http://x' } }],
  ])('%s', (_name, schema) => {
    expect(compiler.check(schema)).toEqual([]);
  });
});

describe('CETP-3.2-06 / 3.2-07: Draft 2020-12 only', () => {
  it.each(['http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2019-09/schema', 42])(
    '$schema %j is a dialect_mismatch',
    (dialect) => expectKeywordIssue('$schema', dialect, 'dialect_mismatch', 'CETP-3.2-07'),
  );

  it('a nested $schema is checked too', () => {
    expectIssue(
      compiler.check({ properties: { a: { $schema: 'http://json-schema.org/draft-07/schema#' } } }),
      {
        code: 'dialect_mismatch',
        path: '/properties/a/$schema',
      },
    );
  });

  it('a session schema_dialect other than 2020-12 is unsupported', () => {
    expect(checkSchemaDialect(undefined)).toEqual([]);
    expect(checkSchemaDialect(DRAFT_2020_12)).toEqual([]);
    expectIssue(checkSchemaDialect('http://json-schema.org/draft-07/schema#'), {
      code: 'unsupported_dialect',
      ruleId: 'CETP-3.2-06',
    });
  });
});

describe('CETP-3.2-08 / 3.2-09: no network resources, $ref only within the document', () => {
  it.each([
    ['$ref', { $ref: 'https://example.com/schema.json' }, '/$ref'],
    ['relative $ref', { $ref: 'other.json#/a' }, '/$ref'],
    ['nested $ref', { properties: { a: { items: { $ref: 'http://x/y' } } } }, '/properties/a/items/$ref'],
    ['$ref in allOf', { allOf: [{ $ref: '//cdn.example/s' }] }, '/allOf/0/$ref'],
    ['$dynamicRef', { $dynamicRef: 'https://example.com/s#meta' }, '/$dynamicRef'],
    ['non-string $ref', { $ref: 5 }, '/$ref'],
  ])('%s is an external_ref', (_name, schema, path) => {
    expectIssue(compiler.check(schema), { code: 'external_ref', ruleId: 'CETP-3.2-09', path });
    expectIssue(compiler.check(schema), { code: 'external_ref', ruleId: 'CETP-3.2-08' });
  });

  it.each(['https://example.com/schemas/alert', 'http://x/y', '//example.com/s'])(
    '$id %j is a network_id',
    (id) => expectKeywordIssue('$id', id, 'network_id', 'CETP-3.2-08'),
  );

  it('a fragment $ref that does not resolve fails to compile', () => {
    expectIssue(compiler.check({ $ref: '#/$defs/missing' }), { code: 'schema_compile_failed' });
  });
});

describe('caps and compilation (untrusted providers, CETP-7.3-01, 7.3-02)', () => {
  it.each([null, 'object', 3, [{ type: 'string' }]])('%j is not a schema', (schema) => {
    expectIssue(compiler.check(schema), { code: 'not_a_schema' });
  });

  it('rejects a schema nested deeper than maxDepth', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { a: deep } };
    expect(new ToolSchemaCompiler({ maxDepth: 200 }).check(deep)).toEqual([]);
    expectIssue(new ToolSchemaCompiler({ maxDepth: 20 }).check(deep), {
      code: 'schema_too_deep',
      ruleId: 'CETP-7.3-01',
    });
  });

  it('rejects a schema larger than maxBytes', () => {
    const big = { type: 'object', description: 'x'.repeat(2000) };
    expectIssue(checkToolSchema(big, { maxBytes: 1000 }), {
      code: 'schema_too_large',
      ruleId: 'CETP-7.3-01',
    });
    expect(checkToolSchema(big, { maxBytes: 4000 })).toEqual([]);
  });

  it('rejects a schema that is not valid JSON Schema', () => {
    expectIssue(compiler.check({ type: 'text' }), { code: 'schema_compile_failed', ruleId: 'CETP-7.3-02' });
    expectIssue(compiler.check({ minLength: -1 }), { code: 'schema_compile_failed' });
  });

  it('does not let one schema $id collide with or leak into another', () => {
    const a = { $id: 'urn:example:s', $defs: { v: { type: 'string' } }, $ref: '#/$defs/v' };
    const b = { $id: 'urn:example:s', $defs: { v: { type: 'number' } }, $ref: '#/$defs/v' };
    const va = okValue(compiler.compile(a, 'input'));
    const vb = okValue(compiler.compile(b, 'input'));
    expect([va('x'), vb('x')].map((i) => i.length)).toEqual([0, 1]);
  });
});

describe('compiled validators', () => {
  it('report input violations as INVALID_ARGS material (CETP-5-14)', () => {
    const validate = okValue(compiler.compile(INPUT, 'input'));
    expect(validate({ symbol: 'X', price: 1 })).toEqual([]);
    expectIssue(validate({ symbol: 'X', price: 0 }), {
      code: 'input_schema_violation',
      ruleId: 'CETP-5-14',
      path: '/price',
    });
    expectIssue(validate({ symbol: 'X', price: 1, extra: true }), { code: 'input_schema_violation' });
  });

  it('report output violations (CETP-4.2-03)', () => {
    const validate = okValue(compiler.compile({ type: 'object', required: ['alert_id'] }, 'output'));
    expectIssue(validate({}), { code: 'output_schema_violation', ruleId: 'CETP-4.2-03' });
  });

  it('keep working across the compiler renewing its Ajv instance (a long campaign compiles thousands of schemas)', () => {
    const long = new ToolSchemaCompiler();
    const validators = Array.from({ length: 600 }, (_, i) =>
      okValue(long.compile({ type: 'object', properties: { n: { const: i } }, required: ['n'] }, 'input')),
    );
    for (const [i, validate] of validators.entries()) {
      expect(validate({ n: i })).toEqual([]);
      expect(validate({ n: i + 1 })).not.toEqual([]);
    }
  });

  it('refuse to compile an unsafe schema', () => {
    expectIssue(issuesOf(compiler.compile({ $ref: 'https://x/y' }, 'input')), { code: 'external_ref' });
  });
});

describe('ToolSchemaCompiler remembers verdicts by schema text', () => {
  it('gives a schema seen before the same verdicts, with each call’s own path and role', () => {
    const compiler = new ToolSchemaCompiler();
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const first = compiler.compile(schema, 'input');
    const again = compiler.compile(JSON.parse(JSON.stringify(schema)), 'output');
    if (!first.ok || !again.ok) throw new Error('expected both to compile');
    expect(first.value({ n: 1 })).toEqual([]);
    expect(again.value({ n: 1 })).toEqual([]);
    expect(first.value({}).map((i) => i.code)).toEqual(['input_schema_violation']);
    expect(again.value({}).map((i) => i.code)).toEqual(['output_schema_violation']);

    const broken = { type: 'text' };
    const a = compiler.compile(broken, 'input', '/tools/0/input_schema');
    const b = compiler.compile(broken, 'input', '/tools/3/output_schema');
    expect(a.ok || b.ok).toBe(false);
    if (a.ok || b.ok) return;
    expect(a.issues.map((i) => [i.code, i.path])).toEqual([
      ['schema_compile_failed', '/tools/0/input_schema'],
    ]);
    expect(b.issues.map((i) => [i.code, i.path])).toEqual([
      ['schema_compile_failed', '/tools/3/output_schema'],
    ]);
    expect(b.issues[0]?.message).toBe(a.issues[0]?.message);
  });
});

describe('one meta-schema validator shared by every compiler of a thread', () => {
  // Each compiler's Ajv asks the shared validator (tool-schema.ts META): its verdicts and wording must
  // be those of an Ajv that compiled the meta-schema itself.
  const OPTIONS = { strict: false, logger: false, addUsedSchema: false, validateFormats: false } as const;
  const refused = [{ type: 5 }, { properties: { a: { minLength: -1 } } }, { required: 'a' }, { items: [1] }];

  it.each(refused)('refuses %j with the words of a fresh Ajv', (schema) => {
    let expected = '';
    try {
      new Ajv2020(OPTIONS).compile(schema);
    } catch (error) {
      expected = (error as Error).message;
    }
    expect(expected).toMatch(/^schema is invalid: /);
    for (const c of [new ToolSchemaCompiler(), new ToolSchemaCompiler()])
      expect(c.check(schema).map((i) => i.message)).toEqual([`schema does not compile: ${expected}`]);
  });

  it('accepts what a fresh Ajv accepts', () => {
    expect(new ToolSchemaCompiler().check(INPUT)).toEqual([]);
    expect(typeof new Ajv2020(OPTIONS).compile(INPUT)).toBe('function');
  });
});
