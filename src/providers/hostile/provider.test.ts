/**
 * Where a hostile provider tells no lie it speaks valid CETP v2 — checked with the protocol layer's
 * own readers and descriptor checks — so a consumer gets as far as the lie. Also: sessions,
 * versions, the v1 bait, and several hostile providers sharing one peer.
 */
import { describe, expect, it } from 'vitest';
import {
  checkNegotiateResponse,
  checkProviderInfo,
  checkToolList,
  type NegotiateResponse,
  readResponseBundle,
} from '../../protocol/index.ts';
import { World } from '../../sim/world.ts';
import { agentPackage, data, status } from '../testing.ts';
import { installHostile } from './index.ts';
import { HOSTILE_PACKAGE, PEER_PACKAGE } from './manifest.ts';
import { runHostile } from './testing.ts';

const ALL_CAPS = ['async_operations', 'cancellation', 'large_results'];

describe('hostile provider, honest parts', () => {
  it('CETP-2.2-04 CETP-3.2-01 CETP-4-03 CETP-4.2-01: with no lie, every reply passes the protocol checks', async () => {
    await runHostile({}, async (c) => {
      const negotiate = await c.negotiate(['large_results', 'cancellation']);
      const negotiated = readResponseBundle(negotiate, 'negotiate');
      expect(negotiated.ok).toBe(true);
      const response = data(negotiate) as unknown as NegotiateResponse;
      expect(
        checkNegotiateResponse(response, {
          consumerVersions: [2, 1],
          consumerCapabilities: ['large_results', 'cancellation'],
        }),
      ).toEqual([]);
      expect(response.capabilities).toEqual(['cancellation', 'large_results']);

      const info = await c.method('get_provider_info');
      expect(readResponseBundle(info, 'get_provider_info').ok).toBe(true);
      expect(checkProviderInfo(data(info), { packageName: HOSTILE_PACKAGE }).ok).toBe(true);

      const list = await c.method('list_tools');
      const checked = checkToolList(data(list), { negotiatedCapabilities: response.capabilities });
      expect([checked.accepted.map((t) => t.name), checked.rejected, checked.issues]).toEqual([
        ['lookup'],
        [],
        [],
      ]);

      const requestId = c.ctx.seededUuid();
      const reply = await c.execute('lookup', { query: 'weather' }, { requestId });
      const read = readResponseBundle(reply, 'execute_tool', {
        expectedRequestId: requestId,
        negotiatedCapabilities: response.capabilities,
      });
      expect(read.ok).toBe(true);
      expect(data(reply)).toEqual({ kind: 'inline', value: { answer: 'forty-two' } });
      expect(status(await c.execute('nothing_here', {}))).toBe('error:TOOL_NOT_FOUND');
    });
  });

  it('CETP-2.2-14 CETP-2.2-16 CETP-4-07: unknown sessions, missing versions and unknown methods are refused', async () => {
    await runHostile({}, async (c) => {
      expect(status(await c.method('list_tools'))).toBe('error:NEGOTIATION_REQUIRED');
      expect(status(await c.negotiate(ALL_CAPS, [1]))).toBe('error:UNSUPPORTED_VERSION');
      await c.negotiate();
      expect(status(await c.call('list_tools', null))).toBe('error:UNSUPPORTED_VERSION');
      expect(status(await c.method('drop_everything'))).toBe('error:METHOD_NOT_FOUND');
      const foreign = await c.method('get_operation', (b) => b.putString('operation_id', 'op_0'));
      expect(status(foreign)).toBe('error:INVALID_REQUEST');
    });
  });

  it('CETP-4.4-04: an `accepted` answer is followed by an operation that succeeds', async () => {
    await runHostile({ execute: { kind: 'accepted' } }, async (c) => {
      await c.negotiate();
      const requestId = c.ctx.seededUuid();
      const accepted = await c.execute('lookup', { query: 'later' }, { requestId });
      const operationId = String(data(accepted).operation_id);
      const op = await c.method('get_operation', (b) => b.putString('operation_id', operationId), requestId);
      expect(readResponseBundle(op, 'get_operation', { expectedRequestId: requestId }).ok).toBe(true);
      expect(data(op)).toMatchObject({ state: 'succeeded', result: { kind: 'inline' } });
      const cancel = await c.method(
        'cancel_operation',
        (b) => b.putString('operation_id', operationId),
        requestId,
      );
      expect(status(cancel)).toBe('error:CONFLICT');
    });
  });

  it('installHostile installs the peer once for several hostile providers', () => {
    const world = new World();
    world.install(agentPackage(), () => ({}));
    installHostile(world, {});
    installHostile(
      world,
      {},
      { packageName: 'com.example.hostile2', authority: 'com.example.hostile2.tools' },
    );
    expect(world.pm.getPackageUid(PEER_PACKAGE)).not.toBeNull();
    expect(world.pm.getPackageUid('com.example.hostile2')).not.toBeNull();
  });
});
