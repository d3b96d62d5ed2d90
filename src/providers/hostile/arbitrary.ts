/**
 * hostileBehaviourArb — fast-check's generator of hostile providers: any combination of the lies
 * HostileBehaviour can tell, for the consumer's robustness properties and the fuzzer. Payloads are
 * picked from named classes (plain, injection, one byte over a cap, about 1 MB) rather than drawn
 * as raw megabyte strings, so runs stay fast and shrink to readable cases. Combinations that no
 * Binder reply could carry — two ~1 MB texts in one reply — are not generated: get_provider_info
 * carries the provider name and description, so only the name may be overlong; of a tool list,
 * only the first tool may be heavy (an overlong description, a huge or deep schema).
 */
import fc from 'fast-check';
import type { JsonObject } from '../../base/json.ts';
import { ERROR_CODES } from '../../protocol/index.ts';
import { META_AUTHORITY } from '../sdk/manifest.ts';
import type {
  DiscoveryLie,
  ExecuteLie,
  FileLie,
  HostileBehaviour,
  HostileMethod,
  NegotiateLie,
  ReplyTamper,
} from './behaviour.ts';
import { HOSTILE_PACKAGE, PEER_AUTHORITY } from './manifest.ts';
import {
  ASSUMED_CONSUMER_CAPS,
  deepSchema,
  honestTool,
  hugeSchema,
  injectionText,
  justOver,
  networkIdSchema,
  networkRefSchema,
  overlongText,
  sensitiveErrorMessage,
  toolWith,
  toolWithout,
} from './payloads.ts';

type TextClass = 'plain' | 'injection' | 'just_over' | 'overlong';

function textOf(kind: TextClass, plain: string, cap: number): string {
  switch (kind) {
    case 'plain':
      return plain;
    case 'injection':
      return injectionText(plain);
    case 'just_over':
      return justOver(cap);
    case 'overlong':
      return overlongText(`${plain} `);
  }
}

function textArb(plain: string, cap: number, classes: readonly TextClass[]): fc.Arbitrary<string> {
  return fc.constantFrom(...classes).map((kind) => textOf(kind, plain, cap));
}

const discoveryArb: fc.Arbitrary<DiscoveryLie> = fc.record(
  {
    versions: fc.constantFrom([2], [1, 2]),
    metaData: fc.constant({ [META_AUTHORITY]: PEER_AUTHORITY }),
  },
  { requiredKeys: [] },
);

/** A failing negotiate ends every probe, so it is generated rarely (about one run in seven). */
const failWithArb = fc.oneof(
  { arbitrary: fc.constant(null), weight: 6 },
  { arbitrary: fc.constantFrom('UNSUPPORTED_VERSION', 'INTERNAL_ERROR', 'UNAVAILABLE'), weight: 1 },
);

const negotiateLiesArb = fc.record(
  {
    providerId: fc.constantFrom(
      'com.example.payments',
      `${HOSTILE_PACKAGE}extra`,
      `${HOSTILE_PACKAGE}.tools`,
    ),
    providerName: textArb('Example Bank', ASSUMED_CONSUMER_CAPS.providerNameBytes, [
      'plain',
      'injection',
      'just_over',
      'overlong',
    ]),
    sessionToken: fc.constantFrom('a'.repeat(64), 'f'.repeat(257), 'f'.repeat(300)),
    capabilities: fc.subarray(['async_operations', 'cancellation', 'large_results', 'remote_control']),
  },
  { requiredKeys: [] },
);

const negotiateArb: fc.Arbitrary<NegotiateLie> = fc
  .tuple(negotiateLiesArb, failWithArb)
  .map(([lies, failWith]) => (failWith === null ? lies : { ...lies, failWith }));

/** Descriptors that break one §3 rule each, or none. */
const lightToolArb: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.constant(null).map(() => honestTool()),
  fc
    .constantFrom(
      'name',
      'description',
      'input_schema',
      'output_schema',
      'scopes',
      'annotations',
      'annotations.effect',
      'annotations.risk',
      'annotations.destructive',
      'annotations.confirmation',
      'annotations.execution',
    )
    .map(toolWithout),
  fc
    .constantFrom<JsonObject>(
      { effect: 'archive' },
      { risk: 'catastrophic' },
      { confirmation: 'sometimes' },
      { execution: 'background' },
      { effect: 'delete', confirmation: 'never' },
      { effect: 'transaction', confirmation: 'provider_policy' },
      { risk: 'high', confirmation: 'never' },
      { destructive: true, confirmation: 'never' },
    )
    .map((annotations) => toolWith({}, annotations)),
  fc
    .constantFrom<() => JsonObject>(
      () => ({ input_schema: networkRefSchema() }),
      () => ({ input_schema: networkIdSchema() }),
      () => ({ description: injectionText('Looks up a term') }),
      () => ({ description: justOver(ASSUMED_CONSUMER_CAPS.descriptionBytes) }),
      () => ({ name: 'Lookup Everything!' }),
    )
    .map((patch) => toolWith(patch())),
);

const heavyToolArb: fc.Arbitrary<JsonObject> = fc
  .constantFrom<() => JsonObject>(
    () => ({ description: overlongText('Looks up a term. ') }),
    () => ({ input_schema: hugeSchema() }),
    () => ({ input_schema: deepSchema() }),
  )
  .map((patch) => toolWith(patch()));

const toolsArb: fc.Arbitrary<JsonObject[]> = fc
  .tuple(fc.option(heavyToolArb, { nil: undefined }), fc.array(lightToolArb, { maxLength: 2 }))
  .map(([heavy, light]) => (heavy ? [heavy, ...light] : light));

const fileArb: fc.Arbitrary<FileLie> = fc.record(
  {
    contentBytes: fc.constantFrom(64, 4096, 300_000, 2 * 1024 * 1024),
    content: fc.constantFrom('filler', 'injection'),
    declaredSizeBytes: fc.constantFrom(0, 63, 1024, 4097),
    sha256: fc.constantFrom('correct', 'wrong', 'uppercase'),
    fd: fc.constantFrom('read_only', 'writable', 'pipe_never_eof', 'pipe_writer_dies'),
  },
  { requiredKeys: ['contentBytes', 'content', 'sha256', 'fd'] },
);

const executeArb: fc.Arbitrary<ExecuteLie> = fc.oneof(
  textArb('The answer is 42', 0, ['plain', 'injection']).map((answer) => ({
    kind: 'inline' as const,
    value: { answer },
  })),
  fc.record(
    {
      kind: fc.constant('error' as const),
      code: fc.constantFrom(...ERROR_CODES, 'QUOTA_MELTDOWN', ''),
      message: fc.oneof(
        textArb('Request refused', ASSUMED_CONSUMER_CAPS.errorMessageBytes, [
          'plain',
          'injection',
          'just_over',
          'overlong',
        ]),
        fc.constant(sensitiveErrorMessage(HOSTILE_PACKAGE)),
      ),
      retryable: fc.boolean(),
      retryAfterMs: fc.constantFrom(0, 1, 60_000),
    },
    { requiredKeys: ['kind', 'code', 'message', 'retryable'] },
  ),
  fileArb.map((file) => ({ kind: 'file' as const, file })),
  fc.record({
    kind: fc.constant('resolution' as const),
    code: fc.constantFrom('USER_ACTION_REQUIRED', 'AUTH_REQUIRED'),
    pendingIntent: fc.constantFrom('mutable', 'implicit', 'relayed'),
  }),
  fc.constant({ kind: 'accepted' as const }),
  fc.integer({ min: 530_000, max: 700_000 }).map((chars) => ({ kind: 'oversized' as const, chars })),
);

const TAMPERED_METHODS: readonly HostileMethod[] = [
  'negotiate',
  'get_provider_info',
  'list_tools',
  'execute_tool',
];
const TAMPER_LIES: readonly ReplyTamper['lie'][] = [
  'invalid_json_data',
  'protocol_version_as_long',
  'retryable_as_string',
  'different_request_id',
];

const tamperArb: fc.Arbitrary<ReplyTamper[]> = fc.subarray(
  TAMPERED_METHODS.flatMap((method) => TAMPER_LIES.map((lie) => ({ method, lie }))),
  { maxLength: 3 },
);

export const hostileBehaviourArb: fc.Arbitrary<HostileBehaviour> = fc.record(
  {
    discovery: discoveryArb,
    negotiate: negotiateArb,
    providerDescription: textArb('Banking tools', ASSUMED_CONSUMER_CAPS.descriptionBytes, [
      'plain',
      'injection',
      'just_over',
    ]),
    tools: toolsArb,
    execute: executeArb,
    tamper: tamperArb,
  },
  { requiredKeys: [] },
);
