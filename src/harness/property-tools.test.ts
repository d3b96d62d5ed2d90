/**
 * A `propertyTools` map says what every property calls (issue 30): one written before a property
 * existed must not let that property silently call every tool. A map that misses properties and has
 * no `default` is refused, naming them; `default` (a list, or 'all') covers the rest explicitly.
 */
import { describe, expect, it } from 'vitest';
import { ALERTS } from '../fuzz/scenario/fixtures.ts';
import { PROPERTIES } from '../fuzz/suites.ts';
import { checkProviderFixtures } from './subjects.ts';

const fixture = { ...ALERTS, name: 'myalerts' };

class Refused extends Error {}
const fail = (message: string): never => {
  throw new Refused(message);
};

const check = (propertyTools: unknown) => checkProviderFixtures([fixture], propertyTools, 'test', fail);

describe('propertyTools', () => {
  it('refuses a map that misses properties without a default, naming every missing one', async () => {
    const error = await check({ idempotency: ['myalerts.create_alert'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Refused);
    const message = (error as Error).message;
    for (const p of PROPERTIES.filter((p) => p.id !== 'idempotency')) expect(message, p.id).toContain(p.id);
    expect(message).toContain("'default'");
    expect(message.startsWith('propertyTools names no tools for ')).toBe(true);
    expect(message).not.toMatch(/for idempotency,/);
  });

  it('gives a default list to every property not named', async () => {
    const { propertyTools } = await check({
      idempotency: ['myalerts.create_alert'],
      default: ['myalerts.get_quote'],
    });
    expect(propertyTools.idempotency).toEqual(['myalerts.create_alert']);
    for (const p of PROPERTIES.filter((p) => p.id !== 'idempotency'))
      expect(propertyTools[p.id], p.id).toEqual(['myalerts.get_quote']);
    expect(propertyTools.default).toBeUndefined();
  });

  it("default: 'all' calls every tool, said explicitly; no map at all is every tool too", async () => {
    const { propertyTools } = await check({ idempotency: ['myalerts.create_alert'], default: 'all' });
    expect(propertyTools).toEqual({ idempotency: ['myalerts.create_alert'] });
    expect((await check(undefined)).propertyTools).toEqual({});
  });

  it('refuses an unknown tool in the default entry, naming it', async () => {
    await expect(check({ default: ['myalerts.nope'] })).rejects.toThrow(
      /propertyTools\.default: unknown tool/,
    );
  });
});
