/**
 * Provider conformance, spec §8 (migration): a provider that moves its existing v1 tools to v2 serves
 * them in v2 with schemas, scopes, annotations and structured errors.
 */
import { describe, expect, it } from 'vitest';
import { checkToolList, readErrorBundle } from '../../protocol/index.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { alertsWorld, data, runAgent } from '../testing.ts';

describe('§8 migration to v2', () => {
  it('CETP-8-02: every v1 tool of the dual-stack app is served in v2 with schemas, scopes and annotations, and fails with §5 errors', async () => {
    const world = alertsWorld();
    await runAgent(world, async (c) => {
      // v1: no protocol_version.
      const v1 = (await c.call('list_tools', new Bundle())) as Bundle;
      const v1Names = (JSON.parse(v1.getString('data') ?? '{}') as { tools: { name: string }[] }).tools.map(
        (t) => t.name,
      );
      expect(v1Names.length).toBeGreaterThan(0);

      await c.negotiate();
      const checked = checkToolList(data(await c.method('list_tools')), {
        negotiatedCapabilities: ['async_operations', 'cancellation', 'large_results'],
      });
      expect(checked.rejected).toEqual([]);
      for (const name of v1Names) {
        const tool = checked.accepted.find((t) => t.name === name);
        expect(tool, `${name} is not served in v2`).toBeDefined();
        expect(tool?.input_schema).toMatchObject({ type: 'object' });
        expect(tool?.output_schema).toBeTypeOf('object');
        expect(Array.isArray(tool?.scopes)).toBe(true);
        expect(tool?.annotations.effect).toBe('read');
      }

      // A failure of a migrated tool is a well-formed §5 error Bundle, not a v1 error string.
      const failed = await c.execute('get_quote', { symbol: 'NOPE' });
      const error = readErrorBundle(failed, { expectedRequestId: failed.getString('request_id') ?? '' });
      expect(error.ok).toBe(true);
      expect(error.ok && error.value.code).toBe('INVALID_ARGS');
      expect(error.ok && error.value.retryable).toBe(false);
    });
  });
});
