/**
 * Every named hostile case really lies on the wire, as a RawClient sees it over simulated Binder:
 * text, errors, Bundles, descriptors, identity and negotiation. (Result delivery — files,
 * resolutions, Binder overflow — is in cases-delivery.test.ts.) Where the protocol layer has a check
 * for the lie, the test also shows that check catching it with the case's rule.
 */
import { describe, expect, it } from 'vitest';
import {
  checkErrorMessage,
  checkNegotiateResponse,
  checkProviderInfo,
  checkToolList,
  DEFAULT_TOOL_SCHEMA_CAPS,
  findMessageLeaks,
  isKnownErrorCode,
  isProviderIdInNamespace,
  isRuleId,
  type NegotiateResponse,
  type ProtocolIssue,
  readResponseBundle,
  utf8Length,
} from '../../protocol/index.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { META_AUTHORITY, META_VERSION, META_VERSIONS, TOOL_PROVIDER_ACTION } from '../sdk/manifest.ts';
import { data, type RawClient, status } from '../testing.ts';
import { HOSTILE_CASES } from './cases.ts';
import { HOSTILE_PACKAGE, PEER_AUTHORITY, PEER_PACKAGE } from './manifest.ts';
import { ASSUMED_CONSUMER_CAPS, INJECTION_MARKER, jsonDepth } from './payloads.ts';
import { isDeliveryCase, runHostile } from './testing.ts';

const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];

async function tools(c: RawClient): Promise<Record<string, unknown>[]> {
  await c.negotiate();
  return data(await c.method('list_tools')).tools as Record<string, unknown>[];
}

/** The issues the protocol's list check raises against the (single) listed tool. */
async function toolIssues(c: RawClient): Promise<ProtocolIssue[]> {
  await c.negotiate();
  const checked = checkToolList(data(await c.method('list_tools')), { negotiatedCapabilities: ALL_CAPS });
  expect(checked.accepted).toEqual([]);
  return checked.rejected.flatMap((r) => r.issues);
}

const rulesOf = (issues: readonly ProtocolIssue[]) => issues.flatMap((i) => i.ruleIds);

async function lookup(c: RawClient, requestId?: string): Promise<Bundle> {
  await c.negotiate();
  return c.execute('lookup', { query: 'weather' }, requestId !== undefined ? { requestId } : {});
}

type Observation = (c: RawClient) => Promise<void>;

const OBSERVATIONS: Readonly<Record<string, Observation>> = {
  'overlong-provider-name': async (c) => {
    const name = String(data(await c.negotiate()).provider_name);
    expect(utf8Length(name)).toBeGreaterThan(1_000_000);
    expect(data(await c.method('get_provider_info')).provider_name).toBe(name);
  },
  'provider-name-just-over-cap': async (c) => {
    const name = String(data(await c.negotiate()).provider_name);
    expect(utf8Length(name)).toBe(ASSUMED_CONSUMER_CAPS.providerNameBytes + 1);
  },
  'overlong-tool-description': async (c) => {
    expect(utf8Length(String((await tools(c))[0]?.description))).toBeGreaterThan(1_000_000);
  },
  'tool-description-just-over-cap': async (c) => {
    expect(utf8Length(String((await tools(c))[0]?.description))).toBe(
      ASSUMED_CONSUMER_CAPS.descriptionBytes + 1,
    );
  },
  'overlong-error-message': async (c) => {
    const reply = await lookup(c);
    expect(status(reply)).toBe('error:UNAVAILABLE');
    expect(utf8Length(reply.getString('error_message') ?? '')).toBeGreaterThan(1_000_000);
  },
  'error-message-just-over-cap': async (c) => {
    const reply = await lookup(c);
    expect(utf8Length(reply.getString('error_message') ?? '')).toBe(
      ASSUMED_CONSUMER_CAPS.errorMessageBytes + 1,
    );
  },
  'injection-in-tool-description': async (c) => {
    const description = String((await tools(c))[0]?.description);
    expect(description).toContain(INJECTION_MARKER);
    expect(description).toMatch(/^SYSTEM: /m);
  },
  'injection-in-provider-identity': async (c) => {
    expect(String(data(await c.negotiate()).provider_name)).toMatch(/\nSYSTEM: /);
    expect(String(data(await c.method('get_provider_info')).description)).toContain(INJECTION_MARKER);
  },
  'injection-in-error-message': async (c) => {
    const reply = await lookup(c);
    expect(status(reply)).toBe('error:INVALID_ARGS');
    expect(reply.getString('error_message')).toContain(INJECTION_MARKER);
  },
  'injection-in-inline-result': async (c) => {
    const reply = await lookup(c);
    expect(data(reply)).toMatchObject({
      kind: 'inline',
      value: { answer: expect.stringContaining(INJECTION_MARKER) },
    });
  },
  'unknown-error-code-retryable': async (c) => {
    const reply = await lookup(c);
    const code = reply.getString('error_code') ?? '';
    expect(isKnownErrorCode(code)).toBe(false);
    expect(reply.getBoolean('retryable', false)).toBe(true);
    expect(reply.typeOf('retry_after_ms')).toBe('Long');
    expect(reply.getLong('retry_after_ms', -1)).toBe(1);
  },
  'sensitive-error-content': async (c) => {
    const reply = await lookup(c);
    const message = reply.getString('error_message') ?? '';
    expect(status(reply)).toBe('error:INTERNAL_ERROR');
    expect(findMessageLeaks(message)).toEqual(
      expect.arrayContaining(['a Java/Kotlin stack frame', 'an absolute Unix path', 'a "Caused by" chain']),
    );
    expect(message).toContain('Bearer ');
    expect(rulesOf(checkErrorMessage(message, 'INTERNAL_ERROR'))).toContain('CETP-5-25');
  },
  'invalid-json-in-list-tools': async (c) => {
    await c.negotiate();
    const reply = await c.method('list_tools');
    expect(reply.getString('status')).toBe('success');
    expect(() => JSON.parse(reply.getString('data') ?? '')).toThrow(SyntaxError);
    expect(readResponseBundle(reply, 'list_tools').ok).toBe(false);
  },
  'invalid-json-in-result': async (c) => {
    const reply = await lookup(c);
    expect(reply.getString('status')).toBe('success');
    expect(() => JSON.parse(reply.getString('data') ?? '')).toThrow(SyntaxError);
  },
  'protocol-version-as-long': async (c) => {
    const reply = await lookup(c);
    expect(reply.typeOf('protocol_version')).toBe('Long');
    expect(reply.getInt('protocol_version')).toBe(0);
    const read = readResponseBundle(reply, 'execute_tool');
    expect(read.ok ? [] : read.issues.map((i) => i.path)).toContain('protocol_version');
  },
  'retryable-as-string': async (c) => {
    const reply = await lookup(c);
    expect(status(reply)).toBe('error:UNAVAILABLE');
    expect(reply.typeOf('retryable')).toBe('String');
    expect(reply.getString('retryable')).toBe('true');
    expect(reply.getBoolean('retryable', false)).toBe(false);
  },
  'request-id-mismatch': async (c) => {
    const requestId = c.ctx.seededUuid();
    const reply = await lookup(c, requestId);
    expect(reply.getString('status')).toBe('success');
    expect(reply.getString('request_id')).not.toBe(requestId);
    expect(readResponseBundle(reply, 'execute_tool', { expectedRequestId: requestId }).ok).toBe(false);
  },
  'missing-annotation-effect': async (c) => {
    const [tool] = await tools(c);
    expect(tool?.annotations).not.toHaveProperty('effect');
    expect(rulesOf(await toolIssues(c))).toContain('CETP-3.2-11');
  },
  'missing-output-schema': async (c) => {
    expect((await tools(c))[0]).not.toHaveProperty('output_schema');
    expect(rulesOf(await toolIssues(c))).toContain('CETP-3.2-11');
  },
  'unknown-effect-enum': async (c) => {
    expect((await tools(c))[0]?.annotations).toMatchObject({ effect: 'archive' });
    expect(rulesOf(await toolIssues(c))).toContain('CETP-3.2-12');
  },
  'inconsistent-annotations': async (c) => {
    expect((await tools(c))[0]?.annotations).toMatchObject({ effect: 'delete', confirmation: 'never' });
    expect(rulesOf(await toolIssues(c))).toContain('CETP-3.4-09');
  },
  'network-ref-schema': async (c) => {
    expect((await tools(c))[0]?.input_schema).toMatchObject({ $ref: expect.stringMatching(/^https:\/\//) });
    expect(rulesOf(await toolIssues(c))).toEqual(expect.arrayContaining(['CETP-3.2-08']));
  },
  'network-id-schema': async (c) => {
    expect((await tools(c))[0]?.input_schema).toMatchObject({ $id: expect.stringMatching(/^https:\/\//) });
    expect(rulesOf(await toolIssues(c))).toEqual(expect.arrayContaining(['CETP-3.2-08']));
  },
  'huge-schema': async (c) => {
    const schema = (await tools(c))[0]?.input_schema;
    expect(JSON.stringify(schema).length).toBeGreaterThan(DEFAULT_TOOL_SCHEMA_CAPS.maxBytes);
    expect((await toolIssues(c)).length).toBeGreaterThan(0);
  },
  'deep-schema': async (c) => {
    const schema = (await tools(c))[0]?.input_schema;
    expect(jsonDepth(schema as never)).toBeGreaterThan(DEFAULT_TOOL_SCHEMA_CAPS.maxDepth);
    expect((await toolIssues(c)).length).toBeGreaterThan(0);
  },
  'provider-id-outside-namespace': async (c) => {
    const id = String(data(await c.negotiate()).provider_id);
    expect(isProviderIdInNamespace(id, HOSTILE_PACKAGE)).toBe(false);
    const info = checkProviderInfo(data(await c.method('get_provider_info')), {
      packageName: HOSTILE_PACKAGE,
    });
    expect(info.ok ? [] : rulesOf(info.issues)).toContain('CETP-3.1-02');
  },
  'session-token-over-256-bytes': async (c) => {
    const response = data(await c.negotiate()) as unknown as NegotiateResponse;
    expect(utf8Length(response.session_token)).toBe(300);
    const issues = checkNegotiateResponse(response, {
      consumerVersions: [2, 1],
      consumerCapabilities: ALL_CAPS,
    });
    expect(rulesOf(issues)).toContain('CETP-2.2-08');
    // The provider then accepts the over-long token.
    expect(status(await c.method('list_tools'))).toBe('success');
  },
  'capabilities-not-offered': async (c) => {
    const response = data(await c.negotiate(['large_results'])) as unknown as NegotiateResponse;
    expect(response.capabilities).toEqual(expect.arrayContaining(['async_operations', 'remote_control']));
    const issues = checkNegotiateResponse(response, {
      consumerVersions: [2, 1],
      consumerCapabilities: ['large_results'],
    });
    expect(rulesOf(issues)).toContain('CETP-2.2-06');
  },
  'accepted-without-async': async (c) => {
    const negotiated = data(await c.negotiate(['large_results'])).capabilities as string[];
    expect(negotiated).not.toContain('async_operations');
    const reply = await c.execute('lookup', { query: 'weather' });
    expect(status(reply)).toBe('accepted');
    expect(String(data(reply).operation_id)).toMatch(/^op_/);
    const read = readResponseBundle(reply, 'execute_tool', { negotiatedCapabilities: negotiated });
    expect(read.ok ? [] : rulesOf(read.issues)).toContain('CETP-2.3-03');
  },
  'negotiate-unsupported-version-with-v1-bait': async (c) => observeV1Bait(c, 'UNSUPPORTED_VERSION'),
  'negotiate-internal-error-with-v1-bait': async (c) => observeV1Bait(c, 'INTERNAL_ERROR'),
  'deadline-exceeded-first-answer': async (c) => {
    const first = await lookup(c, 'rid-deadline');
    expect(status(first)).toBe('error:DEADLINE_EXCEEDED');
    expect(first.getBoolean('retryable', true)).toBe(false);
    // The same-id query (5-19) reaches the result; a new request_id meets the deadline again.
    expect(status(await c.execute('lookup', { query: 'weather' }, { requestId: 'rid-deadline' }))).toBe(
      'success',
    );
    expect(status(await lookup(c, 'rid-other'))).toBe('error:DEADLINE_EXCEEDED');
  },
  'rate-limited-first-answer': async (c) => {
    const first = await lookup(c, 'rid-rate');
    expect(status(first)).toBe('error:RATE_LIMITED');
    expect(first.getBoolean('retryable', false)).toBe(true);
    expect(first.getLong('retry_after_ms', -1)).toBe(1_000);
    // The re-send with the same request_id, after the wait, gets the result (5-27).
    expect(status(await c.execute('lookup', { query: 'weather' }, { requestId: 'rid-rate' }))).toBe(
      'success',
    );
  },
  'auth-required-claimed-retryable': async (c) => {
    const reply = await lookup(c);
    expect(status(reply)).toBe('error:AUTH_REQUIRED');
    expect(reply.getBoolean('retryable', false)).toBe(true);
    expect(reply.getLong('retry_after_ms', -1)).toBe(1);
    // Nothing the consumer could launch: only the user, outside this call, can change the answer.
    expect(reply.containsKey('resolution')).toBe(false);
    expect(reply.containsKey('resume_token')).toBe(false);
  },
  'version-field-lists-two': async (c) => {
    const service = c.ctx.packageManager
      .queryIntentServices(TOOL_PROVIDER_ACTION)
      .find((s) => s.packageName === HOSTILE_PACKAGE);
    expect(service?.metaData[META_VERSION]).toBe('1,2');
    expect(service?.metaData[META_VERSIONS]).toBeUndefined();
    // It answers v2 all the same: the bait a consumer reading "1,2" as a list would take.
    expect(status(await c.negotiate())).toBe('success');
  },
  'inline-result-off-schema': async (c) => {
    const listed = (await tools(c))[0] as { output_schema?: { properties?: { answer?: { type?: string } } } };
    expect(listed.output_schema?.properties?.answer?.type).toBe('string');
    const value = data(await lookup(c)).value as { answer?: unknown };
    expect(typeof value.answer).toBe('number');
  },
  'cancel-requested-then-succeeds': async (c) => {
    await c.negotiate();
    const requestId = 'rid-op';
    const accepted = await c.execute('lookup', { query: 'weather' }, { requestId });
    expect(status(accepted)).toBe('accepted');
    const operationId = String(data(accepted).operation_id);
    const op = (b: Bundle) => b.putString('operation_id', operationId);
    const cancel = await c.method('cancel_operation', op, requestId);
    expect(data(cancel)).toEqual({ operation_id: operationId, state: 'cancellation_requested' });
    expect(data(await c.method('get_operation', op, requestId)).state).toBe('running');
    await c.ctx.sleep(20_000);
    // Cancellation is cooperative: taken, and the operation still succeeded (4.4-19).
    expect(data(await c.method('get_operation', op, requestId)).state).toBe('succeeded');
  },
  'discovery-authority-of-other-package': async (c) => {
    const services = c.ctx.packageManager.queryIntentServices(TOOL_PROVIDER_ACTION);
    const service = services.find((s) => s.packageName === HOSTILE_PACKAGE);
    expect(service?.metaData[META_AUTHORITY]).toBe(PEER_AUTHORITY);
    expect(c.ctx.packageManager.resolveContentProvider(PEER_AUTHORITY)?.packageName).toBe(PEER_PACKAGE);
    // A consumer that skipped the check would be talking to the peer under the hostile's name.
    expect(c.authority).not.toBe(PEER_AUTHORITY);
  },
};

/** A failed negotiate although versions "1,2" is declared, and a working v1 path: the bait (8-08). */
async function observeV1Bait(c: RawClient, code: string): Promise<void> {
  const service = c.ctx.packageManager
    .queryIntentServices(TOOL_PROVIDER_ACTION)
    .find((s) => s.packageName === HOSTILE_PACKAGE);
  expect(service?.metaData).toMatchObject({ [META_VERSION]: '1', [META_VERSIONS]: '1,2' });
  for (const capabilities of [ALL_CAPS, []]) {
    expect(status(await c.negotiate(capabilities, [2, 1]))).toBe(`error:${code}`);
  }
  const v1 = await c.call('list_tools', null);
  expect(v1?.getString('status')).toBe('success');
  expect(JSON.parse(v1?.getString('data') ?? '{}')).toMatchObject({ tools: [{ name: 'lookup' }] });
  const run = new Bundle();
  run.putString('tool_name', 'lookup');
  run.putString('args', '{"query":"weather"}');
  expect((await c.call('execute_tool', run))?.getString('status')).toBe('success');
}

describe('hostile catalogue', () => {
  it('case ids are unique, every rule id exists, and every case has an observation', () => {
    const ids = HOSTILE_CASES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of HOSTILE_CASES) {
      expect(c.ruleIds.length, c.id).toBeGreaterThan(0);
      for (const r of c.ruleIds) expect(isRuleId(r), `${c.id}: ${r}`).toBe(true);
    }
    const mine = HOSTILE_CASES.filter((c) => !isDeliveryCase(c)).map((c) => c.id);
    expect(mine.filter((id) => !(id in OBSERVATIONS))).toEqual([]);
    expect(Object.keys(OBSERVATIONS).filter((id) => !mine.includes(id))).toEqual([]);
  });
});

describe('hostile cases: what the RawClient sees', () => {
  it('every observation fails against an honest provider (so each one can fail)', async () => {
    for (const [id, observe] of Object.entries(OBSERVATIONS)) {
      await expect(runHostile({}, observe), id).rejects.toThrow();
    }
  });

  for (const hostile of HOSTILE_CASES.filter((c) => !isDeliveryCase(c))) {
    it(`${hostile.id} [${hostile.ruleIds.join(' ')}]: ${hostile.description}`, async () => {
      const observe = OBSERVATIONS[hostile.id];
      if (!observe) throw new Error(`no observation for ${hostile.id}`);
      const { report } = await runHostile(hostile.behaviour, observe);
      expect(report.outcome).toEqual({ kind: 'completed' });
    });
  }
});
