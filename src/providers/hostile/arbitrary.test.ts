/**
 * hostileBehaviourArb: whatever combination of lies it generates, a RawClient probing the provider
 * over simulated Binder (negotiate, get_provider_info, list_tools, execute_tool, and the follow-up
 * the answer calls for) sees exactly those lies — and the same behaviour on the same seed gives the
 * same trace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../protocol/index.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { DeadObjectException } from '../../sim/core/errors.ts';
import { META_AUTHORITY, META_VERSIONS, TOOL_PROVIDER_ACTION } from '../sdk/manifest.ts';
import type { RawClient } from '../testing.ts';
import { hostileBehaviourArb } from './arbitrary.ts';
import type { FileLie, HostileBehaviour, HostileMethod, ReplyTamper } from './behaviour.ts';
import { HOSTILE_PACKAGE, PEER_PACKAGE } from './manifest.ts';
import { honestTool, jsonDocumentOfSize } from './payloads.ts';
import { HOSTILE_PROVIDER_NAME } from './provider.ts';
import { type BoundedRead, readBounded, runHostile } from './testing.ts';

const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];

interface Probe {
  readonly metaData: Record<string, string>;
  negotiate?: Bundle | undefined;
  providerInfo?: Bundle;
  listTools?: Bundle;
  requestId: string;
  execute?: Bundle | 'dead';
  file?: BoundedRead & { readonly mode: string };
  operation?: Bundle;
}

function parse(reply: Bundle | undefined): unknown {
  try {
    return JSON.parse(reply?.getString('data') ?? '');
  } catch {
    return undefined;
  }
}

async function probe(c: RawClient): Promise<Probe> {
  const service = c.ctx.packageManager
    .queryIntentServices(TOOL_PROVIDER_ACTION)
    .find((s) => s.packageName === HOSTILE_PACKAGE);
  const p: Probe = { metaData: { ...service?.metaData }, requestId: c.ctx.seededUuid() };
  const b = new Bundle();
  b.putIntArray('consumer_versions', [2, 1]);
  b.putString('consumer_capabilities', JSON.stringify(ALL_CAPS));
  p.negotiate = (await c.call('negotiate', b)) ?? undefined;
  const token = (parse(p.negotiate) as { session_token?: unknown } | undefined)?.session_token;
  if (p.negotiate?.getString('status') !== 'success' || typeof token !== 'string') return p;
  c.token = token;
  p.providerInfo = await c.method('get_provider_info');
  p.listTools = await c.method('list_tools');
  try {
    p.execute = await c.execute('lookup', { query: 'q' }, { requestId: p.requestId });
  } catch (error) {
    if (!(error instanceof DeadObjectException)) throw error;
    p.execute = 'dead';
    return p;
  }
  const fd = p.execute.getParcelFileDescriptor('result_fd');
  if (fd) {
    const mode = fd.mode;
    p.file = { ...(await readBounded(c.ctx, fd, 8 * 1024 * 1024, 30_000)), mode };
    fd.close();
  }
  const operationId = (parse(p.execute) as { operation_id?: unknown } | undefined)?.operation_id;
  if (p.execute.getString('status') === 'accepted' && typeof operationId === 'string') {
    p.operation = await c.method(
      'get_operation',
      (x) => x.putString('operation_id', operationId),
      p.requestId,
    );
  }
  return p;
}

function tampers(b: HostileBehaviour, method: HostileMethod): Set<ReplyTamper['lie']> {
  return new Set((b.tamper ?? []).filter((t) => t.method === method).map((t) => t.lie));
}

/** The Bundle-level lies on a reply of `method`, as far as the reply had the keys they change. */
function expectTampered(reply: Bundle, b: HostileBehaviour, method: HostileMethod, requestId: string | null) {
  const lies = tampers(b, method);
  if (lies.has('protocol_version_as_long')) expect(reply.typeOf('protocol_version')).toBe('Long');
  else expect(['Int', null]).toContain(reply.typeOf('protocol_version'));
  if (lies.has('invalid_json_data') && reply.containsKey('data')) expect(parse(reply)).toBeUndefined();
  if (reply.getString('status') === 'error')
    expect(reply.typeOf('retryable')).toBe(lies.has('retryable_as_string') ? 'String' : 'Boolean');
  if (requestId !== null) {
    if (lies.has('different_request_id')) expect(reply.getString('request_id')).not.toBe(requestId);
    else expect(reply.getString('request_id')).toBe(requestId);
  }
}

function expectNegotiate(p: Probe, b: HostileBehaviour): void {
  const reply = p.negotiate as Bundle;
  const lie = b.negotiate ?? {};
  expectTampered(reply, b, 'negotiate', null);
  if (lie.failWith) {
    expect(reply.getString('error_code')).toBe(lie.failWith);
    return;
  }
  expect(reply.getString('status')).toBe('success');
  if (tampers(b, 'negotiate').has('invalid_json_data')) return;
  expect(parse(reply)).toMatchObject({
    selected_version: 2,
    provider_id: lie.providerId ?? HOSTILE_PACKAGE,
    provider_name: lie.providerName ?? HOSTILE_PROVIDER_NAME,
    session_token: lie.sessionToken ?? expect.stringMatching(/^[0-9a-f]{64}$/),
    capabilities: lie.capabilities ?? ALL_CAPS,
  });
}

function expectFile(p: Probe, lie: FileLie, declared: Record<string, unknown> | undefined): void {
  const actual = jsonDocumentOfSize(lie.contentBytes, lie.content);
  const file = p.file as NonNullable<Probe['file']>;
  expect(file.mode).toBe(lie.fd === 'writable' ? 'rw' : 'r');
  if (declared) {
    expect(declared.size_bytes).toBe(lie.declaredSizeBytes ?? actual.length);
    const digest = sha256Hex(actual);
    if (lie.sha256 === 'correct') expect(declared.sha256).toBe(digest);
    else if (lie.sha256 === 'uppercase') expect(declared.sha256).toBe(digest.toUpperCase());
    else expect(declared.sha256).not.toBe(digest);
  }
  if (lie.fd === 'pipe_writer_dies') {
    expect([file.eof, file.bytes.length < actual.length]).toEqual([true, true]);
    expect(file.checkError).toMatch(/dead/i);
  } else {
    expect(file.eof).toBe(lie.fd !== 'pipe_never_eof');
    expect(sha256Hex(file.bytes)).toBe(sha256Hex(actual));
  }
}

function expectExecute(p: Probe, b: HostileBehaviour): void {
  const lie = b.execute;
  if (lie?.kind === 'oversized') {
    expect(p.execute === 'dead' ? 'dead' : p.execute?.getString('status')).toBe('dead');
    return;
  }
  const reply = p.execute as Bundle;
  expectTampered(reply, b, 'execute_tool', p.requestId);
  const value = tampers(b, 'execute_tool').has('invalid_json_data') ? undefined : parse(reply);
  const status = reply.getString('status');
  switch (lie?.kind) {
    case undefined:
    case 'inline':
      expect(status).toBe('success');
      if (value !== undefined)
        expect(value).toEqual({ kind: 'inline', value: lie ? lie.value : { answer: 'forty-two' } });
      return;
    case 'error':
      expect([status, reply.getString('error_code'), reply.getString('error_message')]).toEqual([
        'error',
        lie.code,
        lie.message,
      ]);
      if (!tampers(b, 'execute_tool').has('retryable_as_string'))
        expect(reply.getBoolean('retryable')).toBe(lie.retryable);
      if (lie.retryAfterMs !== undefined) expect(reply.getLong('retry_after_ms', -1)).toBe(lie.retryAfterMs);
      return;
    case 'file':
      expect(status).toBe('success');
      expectFile(p, lie.file, value as Record<string, unknown> | undefined);
      return;
    case 'resolution': {
      expect(reply.getString('error_code')).toBe(lie.code);
      const pi = reply.getPendingIntent('resolution');
      const creator = lie.pendingIntent === 'relayed' ? PEER_PACKAGE : HOSTILE_PACKAGE;
      expect(pi?.getCreatorPackage()).toBe(creator);
      expect(pi?.isImmutable()).toBe(lie.pendingIntent !== 'mutable');
      expect(pi?.isTargetedToPackage()).toBe(lie.pendingIntent !== 'implicit');
      return;
    }
    case 'accepted':
      expect(status).toBe('accepted');
      if (value !== undefined) expect(parse(p.operation)).toMatchObject({ state: 'succeeded' });
      return;
  }
}

function expectLies(p: Probe, b: HostileBehaviour): void {
  expect(p.metaData[META_VERSIONS]).toBe((b.discovery?.versions ?? [2]).join(','));
  if (b.discovery?.metaData) expect(p.metaData[META_AUTHORITY]).toBe(b.discovery.metaData[META_AUTHORITY]);
  expectNegotiate(p, b);
  if (!p.providerInfo || !p.listTools) return;
  expectTampered(p.providerInfo, b, 'get_provider_info', null);
  if (!tampers(b, 'get_provider_info').has('invalid_json_data')) {
    expect(parse(p.providerInfo)).toMatchObject({
      provider_name: b.negotiate?.providerName ?? HOSTILE_PROVIDER_NAME,
      ...(b.providerDescription !== undefined ? { description: b.providerDescription } : {}),
    });
  }
  expectTampered(p.listTools, b, 'list_tools', null);
  if (!tampers(b, 'list_tools').has('invalid_json_data')) {
    const listed = (parse(p.listTools) as { tools: unknown }).tools;
    expect(JSON.stringify(listed)).toBe(JSON.stringify(b.tools ?? [honestTool()]));
  }
  expectExecute(p, b);
}

describe('hostileBehaviourArb', () => {
  it('every generated hostile provider tells exactly the lies its behaviour describes', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBehaviourArb, async (behaviour) => {
        let seen: Probe | null = null;
        const run = await runHostile(behaviour, async (c) => {
          seen = await probe(c);
        });
        expect(run.report.outcome).toEqual({ kind: 'completed' });
        expectLies(seen as unknown as Probe, behaviour);
      }),
      { numRuns: 100, seed: 20_260_902 },
    );
  });

  it('the same behaviour on the same seed gives the same trace (determinism)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileBehaviourArb, fc.integer({ min: 0, max: 1000 }), async (behaviour, seed) => {
        const hashes: string[] = [];
        for (let i = 0; i < 2; i++) {
          const run = await runHostile(behaviour, async (c) => void (await probe(c)), { seed });
          hashes.push(run.report.traceHash);
        }
        expect(hashes[1]).toBe(hashes[0]);
      }),
      { numRuns: 15, seed: 7 },
    );
  });
});
