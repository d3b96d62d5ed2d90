import { describe, expect, it } from 'vitest';
import type { ManifestSpec } from './manifest.ts';
import { QUERY_ALL_PACKAGES } from './package-manager.ts';
import { ALERTS, app, CLIENT, MALLORY, newPm, TOOL_ACTION, toolApp } from './testing.ts';

describe('package visibility (developer.android.com/training/package-visibility)', () => {
  const provider = 'com.ex.alerts';
  const cases: { title: string; consumer: Partial<ManifestSpec>; visible: boolean }[] = [
    { title: 'target 29 sees everything without <queries>', consumer: { targetSdk: 29 }, visible: true },
    { title: 'target 30 without <queries> sees nothing', consumer: { targetSdk: 30 }, visible: false },
    { title: 'target 34 without <queries> sees nothing', consumer: {}, visible: false },
    { title: '<queries><package> names it', consumer: { queries: { packages: [provider] } }, visible: true },
    {
      title: '<queries><package> names another',
      consumer: { queries: { packages: ['com.ex.x'] } },
      visible: false,
    },
    {
      title: '<queries><intent> matches its exported service',
      consumer: { queries: { intents: [{ action: TOOL_ACTION }] } },
      visible: true,
    },
    {
      title: '<queries><intent> with an action nobody handles',
      consumer: { queries: { intents: [{ action: 'org.example.NOTHING' }] } },
      visible: false,
    },
    {
      title: '<queries><provider> names its authority',
      consumer: { queries: { providers: [`${provider}.tools`] } },
      visible: true,
    },
    { title: 'QUERY_ALL_PACKAGES', consumer: { usesPermissions: [QUERY_ALL_PACKAGES] }, visible: true },
  ];
  it.each(cases)('$title → $visible', ({ consumer, visible }) => {
    const { pm } = newPm();
    pm.install(toolApp(provider, ALERTS));
    const client = pm.install(app('com.ex.client', CLIENT, consumer));
    expect(pm.canSeePackage(client.uid, provider)).toBe(visible);
    expect(pm.resolveContentProvider(client.uid, `${provider}.tools`) !== null).toBe(visible);
    expect(pm.queryIntentServices(client.uid, TOOL_ACTION).length).toBe(visible ? 1 : 0);
  });

  it('<queries><intent> does not reveal a package whose matching service is not exported', () => {
    const { pm } = newPm();
    pm.install(
      app('com.ex.hidden', ALERTS, {
        services: [{ name: 'S', exported: false, intentFilters: [{ actions: [TOOL_ACTION] }] }],
      }),
    );
    const client = pm.install(
      app('com.ex.client', CLIENT, { queries: { intents: [{ action: TOOL_ACTION }] } }),
    );
    expect(pm.canSeePackage(client.uid, 'com.ex.hidden')).toBe(false);
  });

  it('forceQueryable packages are visible to everyone', () => {
    const { pm } = newPm();
    pm.install(app('com.ex.system', ALERTS, { forceQueryable: true }));
    const client = pm.install(app('com.ex.client', CLIENT));
    expect(pm.canSeePackage(client.uid, 'com.ex.system')).toBe(true);
  });

  it('an app that accessed your provider becomes visible to you, not the other way round, until reboot', () => {
    const { pm } = newPm();
    const alerts = pm.install(toolApp(provider, ALERTS));
    const client = pm.install(app('com.ex.client', CLIENT, { queries: { packages: [provider] } }));
    expect(pm.canSeePackage(alerts.uid, 'com.ex.client')).toBe(false);
    pm.recordInteraction(alerts.uid, client.uid);
    expect(pm.canSeePackage(alerts.uid, 'com.ex.client')).toBe(true);
    const loner = pm.install(app('com.ex.loner', MALLORY));
    pm.recordInteraction(loner.uid, alerts.uid);
    expect(pm.canSeePackage(alerts.uid, 'com.ex.loner')).toBe(false);
    pm.reboot();
    expect(pm.canSeePackage(alerts.uid, 'com.ex.client')).toBe(false);
  });

  it('the system (UID < 10000) and the same UID always see the package', () => {
    const { pm } = newPm();
    const alerts = pm.install(toolApp(provider, ALERTS));
    expect(pm.canSeePackage(1000, provider)).toBe(true);
    expect(pm.canSeePackage(alerts.uid, provider)).toBe(true);
    expect(pm.canSeePackage(1000, 'com.ex.not.installed')).toBe(false);
  });
});
