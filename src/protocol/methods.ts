/**
 * The ContentResolver.call() methods of spec §4 with their capability requirement, and the optional
 * capabilities of §2.3. Also names, per method, the wire shape of the success `data` (and of the
 * `accepted` data for execute_tool), so that schemas/registry.ts can be checked for completeness.
 */
import { issue, type ProtocolIssue } from './issues.ts';
import type { RuleId } from './rule-ids.ts';
import type { WireShapeName } from './schemas/registry.ts';

/** The optional capabilities of §2.3 (CETP-2.3-02); everything else in v2 is core. */
export const CAPABILITIES = ['async_operations', 'cancellation', 'large_results'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export type CapabilityRequirement = 'core' | Capability;

export interface MethodSpec {
  readonly name: V2MethodName;
  /** The §4 table's 能力要求 column. */
  readonly requires: CapabilityRequirement;
  readonly ruleIds: readonly RuleId[];
  /** Whether the request carries the §4.1 envelope (every method except negotiate). */
  readonly envelope: boolean;
  /** Shape of the `data` JSON of a status="success" response. */
  readonly successShape: WireShapeName;
  /** Shape of the `data` JSON of a status="accepted" response, for methods that may return one. */
  readonly acceptedShape?: WireShapeName;
}

export const V2_METHOD_NAMES = [
  'negotiate',
  'get_provider_info',
  'list_tools',
  'execute_tool',
  'get_operation',
  'cancel_operation',
] as const;
export type V2MethodName = (typeof V2_METHOD_NAMES)[number];

export const V2_METHODS: Readonly<Record<V2MethodName, MethodSpec>> = Object.freeze({
  negotiate: {
    name: 'negotiate',
    requires: 'core',
    ruleIds: ['CETP-4-01', 'CETP-2.2-01'],
    envelope: false,
    successShape: 'negotiate_response',
  },
  get_provider_info: {
    name: 'get_provider_info',
    requires: 'core',
    ruleIds: ['CETP-4-02', 'CETP-3.2-01'],
    envelope: true,
    successShape: 'provider_info',
  },
  list_tools: {
    name: 'list_tools',
    requires: 'core',
    ruleIds: ['CETP-4-03'],
    envelope: true,
    successShape: 'list_tools_response',
  },
  execute_tool: {
    name: 'execute_tool',
    requires: 'core',
    ruleIds: ['CETP-4-04'],
    envelope: true,
    successShape: 'execution_result',
    acceptedShape: 'accepted',
  },
  get_operation: {
    name: 'get_operation',
    requires: 'async_operations',
    ruleIds: ['CETP-4-05'],
    envelope: true,
    successShape: 'operation_status',
  },
  cancel_operation: {
    name: 'cancel_operation',
    requires: 'cancellation',
    ruleIds: ['CETP-4-06'],
    envelope: true,
    successShape: 'cancel_response',
  },
});

/**
 * ASSUMPTION: the spec never defines v1's wire. We assume v1 has only `list_tools` and
 * `execute_tool` (the two methods v2 says it keeps, §3.3 and §4), distinguished from v2 by the
 * absence of protocol_version (CETP-4-08, 4-09).
 */
export const V1_METHOD_NAMES = ['list_tools', 'execute_tool'] as const;
export type V1MethodName = (typeof V1_METHOD_NAMES)[number];

export function isV2MethodName(name: string): name is V2MethodName {
  return (V2_METHOD_NAMES as readonly string[]).includes(name);
}

export function isV1MethodName(name: string): name is V1MethodName {
  return (V1_METHOD_NAMES as readonly string[]).includes(name);
}

export function isCapability(name: string): name is Capability {
  return (CAPABILITIES as readonly string[]).includes(name);
}

/**
 * May `method` be called in a session that negotiated `negotiated`? An unknown method is
 * METHOD_NOT_FOUND (CETP-4-07, 5-13); a method whose capability was not negotiated is
 * UNSUPPORTED_CAPABILITY (CETP-2.3-04, 4-05, 4-06, 5-06).
 */
export function checkMethodAllowed(method: string, negotiated: readonly string[]): ProtocolIssue[] {
  if (!isV2MethodName(method)) {
    return [issue('unknown_method', `unknown method ${JSON.stringify(method)}`, ['CETP-4-07', 'CETP-5-13'])];
  }
  const spec = V2_METHODS[method];
  if (spec.requires === 'core' || negotiated.includes(spec.requires)) return [];
  return [
    issue(
      'capability_not_negotiated',
      `${method} requires the ${spec.requires} capability, which was not negotiated`,
      ['CETP-2.3-04', ...spec.ruleIds, 'CETP-5-06'],
    ),
  ];
}
