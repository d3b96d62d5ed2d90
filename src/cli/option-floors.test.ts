/**
 * A provider module whose options break a floor is refused as it loads: exit 2 with one JSON error
 * naming the module, the option, its floor and the rule (issue 30), never a campaign in which
 * every negotiate answers INTERNAL_ERROR.
 */
import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { memoryIo } from './testing.ts';

describe('a provider module with an option below its floor', () => {
  it('is exit 2 naming the module, the option, the floor and the rule id', async () => {
    const io = memoryIo();
    const module = 'src/cli/testdata/below-floor.provider.ts';
    const code = await main(['fuzz', '--json', '--runs', '1', '--provider', module], io);
    expect(code).toBe(2);
    const { error } = JSON.parse(io.stdout.join('\n')) as { error: { code: string; message: string } };
    expect(error.code).toBe('module_load_failed');
    expect(error.message).toContain(module);
    expect(error.message).toContain('limits.idempotencyWindowSeconds: 3600 is below its floor 86400');
    expect(error.message).toContain('CETP-2.2-20');
    expect(error.message).not.toMatch(/\n\s+at /);
  }, 120_000);
});
