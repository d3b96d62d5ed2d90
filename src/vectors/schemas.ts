/**
 * The JSON Schemas (Draft 2020-12) of the vector format: the single source of truth. `vectors
 * generate` writes them to vectors/schemas/ so a device repo can validate what it vendors; `verify`
 * and every load validate against them. Every object is closed (`additionalProperties: false`), so a
 * misspelt key or an unknown matcher is an error with its JSON path, never a silently ignored field.
 */
import { CONSUMER_FORMAT_ID } from './consumer-format.ts';
import { ABILITIES, FORMAT_ID, KILL_TARGETS, LEVELS, MATCHERS, RESULTS } from './format.ts';

const ID = '^[a-z0-9][a-z0-9-]{1,63}$';
const NAME = '^[a-z_][a-z0-9_]{0,63}$';
const SHA256 = '^[0-9a-f]{64}$';
const LONG = '^-?[0-9]{1,19}$';
const VERSION = '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$';

const closed = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const tag = (t: string) => ({ const: t });
const floatValue = { anyOf: [{ type: 'number' }, { enum: ['NaN', 'Infinity', '-Infinity'] }] };
/** A typed value `{ type, value }` whose value is `schema`. */
const typedValue = (t: string, schema: Record<string, unknown>) =>
  closed({ type: tag(t), value: schema }, ['type', 'value']);
/** The typed arrays, written the same whether a runner sends them or a vector expects them. */
const typedArrays = [
  typedValue('string[]', { type: 'array', items: { type: 'string' } }),
  typedValue('int[]', { type: 'array', items: { type: 'integer' } }),
  typedValue('long[]', { type: 'array', items: { type: 'string', pattern: LONG } }),
];
/** A Bundle value whose entries are each a `$defs` `entry` (sendValue or expect). */
const bundleOf = (entry: string) =>
  typedValue('bundle', { type: 'object', additionalProperties: { $ref: `#/$defs/${entry}` } });

/**
 * The schema of a file of vectors (`vectors/schemas/<file>.schema.json`): its `format`, area and
 * description, and its vectors, each the `$defs` entry `vector` names.
 */
function vectorFileSchema<D extends Record<string, unknown>>(
  file: string,
  title: string,
  kind: { readonly format: string; readonly vector: string },
  $defs: D,
) {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://cetp-sim.dev/vectors/schemas/${file}.schema.json`,
    title,
    ...closed(
      {
        format: { const: kind.format },
        area: { type: 'string', pattern: NAME },
        description: { type: 'string' },
        vectors: { type: 'array', items: { $ref: `#/$defs/${kind.vector}` } },
      },
      ['format', 'area', 'description', 'vectors'],
    ),
    $defs,
  };
}

/** Typed values a runner sends (literal, variable, composed string, clock-relative long). */
const sendValue = {
  oneOf: [
    closed({ type: tag('int'), value: { type: 'integer', minimum: -2147483648, maximum: 2147483647 } }, [
      'type',
      'value',
    ]),
    closed({ type: tag('long'), value: { type: 'string', pattern: LONG } }, ['type', 'value']),
    closed({ type: tag('long'), now_plus_ms: { type: 'integer' } }, ['type', 'now_plus_ms']),
    closed({ type: tag('boolean'), value: { type: 'boolean' } }, ['type', 'value']),
    closed({ type: { enum: ['double', 'float'] }, value: floatValue }, ['type', 'value']),
    closed({ type: tag('string'), value: { type: 'string' } }, ['type', 'value']),
    closed({ type: tag('string'), ref: { type: 'string', pattern: NAME } }, ['type', 'ref']),
    closed(
      {
        type: tag('string'),
        parts: {
          type: 'array',
          items: {
            anyOf: [{ type: 'string' }, closed({ ref: { type: 'string', pattern: NAME } }, ['ref'])],
          },
        },
      },
      ['type', 'parts'],
    ),
    closed({ type: tag('bytes'), value: { type: 'string', contentEncoding: 'base64' } }, ['type', 'value']),
    ...typedArrays,
    bundleOf('sendValue'),
    closed({ type: tag('null') }, ['type']),
    closed(
      { type: tag('fd'), sha256: { type: 'string', pattern: SHA256 }, size: { type: 'integer', minimum: 0 } },
      ['type', 'sha256', 'size'],
    ),
  ],
};

/**
 * A value in a consumer vector's scripted reply: anything a runner sends, or a PendingIntent the
 * provider (or the helper app, `other`) creates — its target and mutability as the vector says. A
 * mutable token with an implicit Intent is left out: Android 14 refuses to create one (target 34).
 */
const replyValue = {
  oneOf: [
    { $ref: '#/$defs/sendValue' },
    {
      ...closed(
        {
          type: tag('pending_intent'),
          creator: { enum: ['provider', 'other'] },
          target: { enum: ['provider', 'other', 'implicit'] },
          immutable: { type: 'boolean' },
        },
        ['type', 'creator', 'target', 'immutable'],
      ),
      not: { properties: { target: tag('implicit'), immutable: { const: false } } },
    },
  ],
};

/** One matcher; `$match` picks the branch, so an unknown name fails on `$match` itself. */
const matcher = {
  type: 'object',
  required: ['$match'],
  properties: { $match: { enum: [...MATCHERS] } },
  allOf: [
    ...(
      [
        ['any', {}, []],
        ['absent', {}, []],
        ['uuid', {}, []],
        ['sha256', {}, []],
        ['type', { type: { type: 'string' } }, ['type']],
        ['regex', { pattern: { type: 'string' } }, ['pattern']],
        ['range', { min: { type: 'number' }, max: { type: 'number' } }, []],
        ['oneOf', { values: { type: 'array', minItems: 1 } }, ['values']],
        ['jsonSchema', { schema: { type: ['object', 'boolean'] } }, ['schema']],
        ['capture', { as: { type: 'string', pattern: NAME } }, ['as']],
        ['ref', { name: { type: 'string', pattern: NAME } }, ['name']],
        ['anyOf', { of: { type: 'array', minItems: 2 } }, ['of']],
      ] as const
    ).map(([name, properties, required]) => ({
      if: { properties: { $match: { const: name } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited
      then: closed({ $match: { const: name }, ...properties }, ['$match', ...required]),
    })),
  ],
};

/** An expectation on a Bundle value. */
const expect = {
  oneOf: [
    { $ref: '#/$defs/matcher' },
    closed({ type: tag('int'), value: { type: 'integer' } }, ['type', 'value']),
    closed({ type: tag('long'), value: { type: 'string', pattern: LONG } }, ['type', 'value']),
    closed({ type: tag('boolean'), value: { type: 'boolean' } }, ['type', 'value']),
    closed({ type: { enum: ['double', 'float'] }, value: floatValue }, ['type', 'value']),
    closed({ type: tag('string'), value: { type: 'string' } }, ['type', 'value']),
    closed({ type: tag('string'), json: {} }, ['type', 'json']),
    closed({ type: tag('bytes'), value: { type: 'string' } }, ['type', 'value']),
    ...typedArrays,
    bundleOf('expect'),
    closed({ type: tag('null') }, ['type']),
    closed(
      {
        type: tag('pending_intent'),
        creator: { enum: ['provider', 'other'] },
        immutable: { type: 'boolean' },
      },
      ['type', 'creator', 'immutable'],
    ),
    closed({ type: tag('fd'), read_only: { type: 'boolean' } }, ['type', 'read_only']),
  ],
};

const callSpec = {
  caller: { enum: ['primary', 'second'] },
  method: { type: 'string', minLength: 1 },
  arg: { type: ['string', 'null'] },
  extras: {
    oneOf: [{ type: 'null' }, { type: 'object', additionalProperties: { $ref: '#/$defs/sendValue' } }],
  },
};

const step = {
  type: 'object',
  required: ['op'],
  properties: {
    op: { enum: ['call', 'repeat', 'parallel', 'user', 'kill', 'advance-clock', 'read-fd', 'poll-until'] },
  },
  allOf: (
    [
      ['call', { ...callSpec, expect: { $ref: '#/$defs/expect' } }, ['method', 'arg', 'extras', 'expect']],
      [
        'repeat',
        {
          step: { type: 'integer', minimum: 0 },
          set: { type: 'object', additionalProperties: { $ref: '#/$defs/sendValue' } },
          caller: callSpec.caller,
          expect: { $ref: '#/$defs/expect' },
        },
        ['step', 'expect'],
      ],
      [
        'parallel',
        {
          count: { type: 'integer', minimum: 2, maximum: 64 },
          call: { $ref: '#/$defs/callSpec' },
          expect: {
            type: 'array',
            minItems: 1,
            items: closed({ count: { type: 'integer', minimum: 1 }, reply: { $ref: '#/$defs/expect' } }, [
              'count',
              'reply',
            ]),
          },
        },
        ['count', 'call', 'expect'],
      ],
      ['user', { answer: { enum: ['approve', 'deny', 'back', 'never'] } }, ['answer']],
      ['kill', { process: { enum: [...KILL_TARGETS] } }, []],
      ['advance-clock', { ms: { type: 'integer', minimum: 1 } }, ['ms']],
      [
        'read-fd',
        {
          key: { type: 'string' },
          expect: closed(
            {
              size: { anyOf: [{ type: 'integer', minimum: 0 }, { $ref: '#/$defs/matcher' }] },
              sha256: { anyOf: [{ type: 'string', pattern: SHA256 }, { $ref: '#/$defs/matcher' }] },
            },
            ['size', 'sha256'],
          ),
        },
        ['key', 'expect'],
      ],
      [
        'poll-until',
        {
          call: { $ref: '#/$defs/callSpec' },
          until: { $ref: '#/$defs/expect' },
          max_polls: { type: 'integer', minimum: 1, maximum: 1000 },
          expect: { $ref: '#/$defs/expect' },
        },
        ['call', 'until', 'max_polls', 'expect'],
      ],
    ] as const
  ).map(([op, properties, required]) => ({
    if: { properties: { op: { const: op } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, never awaited
    then: closed({ op: { const: op }, ...properties }, ['op', ...required]),
  })),
};

const vector = closed(
  {
    id: { type: 'string', pattern: ID },
    title: { type: 'string', minLength: 1 },
    since: { type: 'string', pattern: VERSION },
    deprecated: closed({ since: { type: 'string', pattern: VERSION }, reason: { type: 'string' } }, [
      'since',
      'reason',
    ]),
    level: { enum: [...LEVELS] },
    result: { enum: [...RESULTS] },
    rules: { type: 'array', items: { type: 'string', pattern: '^CETP-[0-9.]+-[0-9]{2}$' }, minItems: 1 },
    flags: { type: 'array', items: { type: 'string', pattern: '^[A-Z][A-Za-z0-9]*$' } },
    requires: { type: 'array', items: { enum: [...ABILITIES] }, uniqueItems: true, minItems: 1 },
    provider: { type: 'string', pattern: NAME },
    fresh: { type: 'array', items: { type: 'string', pattern: NAME }, uniqueItems: true },
    steps: { type: 'array', items: { $ref: '#/$defs/step' }, minItems: 1 },
  },
  ['id', 'title', 'since', 'level', 'result', 'rules', 'flags', 'requires', 'provider', 'fresh', 'steps'],
);

export const VECTOR_FILE_SCHEMA = vectorFileSchema(
  'vector-file',
  'A file of CETP v2 provider test vectors',
  { format: FORMAT_ID, vector: 'vector' },
  { sendValue, matcher, expect, callSpec: closed(callSpec, ['method', 'arg', 'extras']), step, vector },
);

const { steps: _steps, fresh: _fresh, ...vectorMeta } = vector.properties;

const consumerVector = closed(
  {
    ...vectorMeta,
    provider: closed(
      { versions: { type: 'array', items: { type: 'integer' }, minItems: 1 }, tools: { type: 'array' } },
      ['versions', 'tools'],
    ),
    task: closed({ tool: { type: 'string' }, args: {} }, ['tool', 'args']),
    replies: {
      type: 'array',
      items: closed(
        {
          method: { type: 'string' },
          n: { type: 'integer', minimum: 1 },
          reply: { type: 'object', additionalProperties: { $ref: '#/$defs/replyValue' } },
        },
        ['method', 'n', 'reply'],
      ),
    },
    requests: { type: 'object', additionalProperties: { type: 'array', items: { $ref: '#/$defs/expect' } } },
    launches: { type: 'array', items: { enum: ['provider', 'other'] } },
    outcome: {},
  },
  [
    'id',
    'title',
    'since',
    'level',
    'result',
    'rules',
    'flags',
    'requires',
    'provider',
    'task',
    'replies',
    'requests',
    'launches',
    'outcome',
  ],
);

export const CONSUMER_FILE_SCHEMA = vectorFileSchema(
  'consumer-vector-file',
  'A file of CETP v2 consumer test vectors (a scripted provider and what the consumer must send)',
  { format: CONSUMER_FORMAT_ID, vector: 'consumerVector' },
  { sendValue, replyValue, matcher, expect, consumerVector },
);

const fileEntry = closed(
  {
    path: { type: 'string' },
    sha256: { type: 'string', pattern: SHA256 },
    vectors: { type: 'integer', minimum: 0 },
  },
  ['path', 'sha256', 'vectors'],
);

export const MANIFEST_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://cetp-sim.dev/vectors/schemas/manifest.schema.json',
  title: 'The manifest of a CETP v2 vector corpus',
  ...closed(
    {
      format: { const: FORMAT_ID },
      format_version: { type: 'string', pattern: VERSION },
      spec: { type: 'string' },
      generator: closed(
        {
          name: { type: 'string' },
          version: { type: 'string' },
          sources_sha256: { type: 'string', pattern: SHA256 },
        },
        ['name', 'version', 'sources_sha256'],
      ),
      variables: { type: 'object', additionalProperties: { type: 'string' } },
      fixtures: {
        type: 'object',
        additionalProperties: closed(
          { package: { type: 'string' }, authority: { type: 'string' }, description: { type: 'string' } },
          ['package', 'authority', 'description'],
        ),
      },
      flags: {
        type: 'object',
        propertyNames: { pattern: '^[A-Z][A-Za-z0-9]*$' },
        additionalProperties: closed({ bug_type: { type: 'string' }, description: { type: 'string' } }, [
          'bug_type',
          'description',
        ]),
      },
      files: { type: 'array', items: fileEntry },
      schemas: { type: 'array', items: fileEntry },
      blobs: {
        type: 'array',
        items: closed(
          { sha256: { type: 'string', pattern: SHA256 }, size: { type: 'integer', minimum: 0 } },
          ['sha256', 'size'],
        ),
      },
    },
    [
      'format',
      'format_version',
      'spec',
      'generator',
      'variables',
      'fixtures',
      'flags',
      'files',
      'schemas',
      'blobs',
    ],
  ),
} as const;

/** A runner's expected failures: vector ids with the reason each is known to fail. */
export const BASELINE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://cetp-sim.dev/vectors/schemas/baseline.schema.json',
  title: 'Expected failures of a CETP v2 vector run',
  ...closed(
    {
      format: { const: 'cetp-vectors-baseline/1' },
      expected_failures: {
        type: 'array',
        items: closed({ id: { type: 'string', pattern: ID }, reason: { type: 'string', minLength: 1 } }, [
          'id',
          'reason',
        ]),
      },
    },
    ['format', 'expected_failures'],
  ),
} as const;

/** Schema files by their name under vectors/schemas/. */
export const SCHEMA_FILES: Readonly<Record<string, unknown>> = {
  'vector-file.schema.json': VECTOR_FILE_SCHEMA,
  'manifest.schema.json': MANIFEST_SCHEMA,
  'baseline.schema.json': BASELINE_SCHEMA,
  'consumer-vector-file.schema.json': CONSUMER_FILE_SCHEMA,
};
