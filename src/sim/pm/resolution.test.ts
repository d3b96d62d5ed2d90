import { describe, expect, it } from 'vitest';
import { ALERTS, app, CLIENT, MALLORY, newPm, TOOL_ACTION } from './testing.ts';

describe('queryIntentServices (ComponentResolver + AppsFilter)', () => {
  it('returns visible exported services with meta-data, by priority then install order', () => {
    const { pm } = newPm();
    const service = (priority: number, exported = true) => ({
      name: 'ToolService',
      exported,
      intentFilters: [{ actions: [TOOL_ACTION], priority }],
      metaData: { priority: String(priority) },
    });
    pm.install(app('com.ex.first', ALERTS, { services: [service(0)] }));
    pm.install(app('com.ex.hidden', ALERTS, { services: [service(50)] }));
    pm.install(app('com.ex.second', ALERTS, { services: [service(0)] }));
    pm.install(app('com.ex.urgent', ALERTS, { services: [service(10)] }));
    pm.install(app('com.ex.private', ALERTS, { services: [service(99, false)] }));
    const client = pm.install(
      app('com.ex.client', CLIENT, {
        queries: { packages: ['com.ex.first', 'com.ex.second', 'com.ex.urgent', 'com.ex.private'] },
      }),
    );
    const found = pm.queryIntentServices(client.uid, TOOL_ACTION);
    expect(found.map((s) => s.packageName)).toEqual(['com.ex.urgent', 'com.ex.first', 'com.ex.second']);
    expect(found[0]).toMatchObject({ name: 'ToolService', uid: pm.getPackageUid('com.ex.urgent') });
    expect(found[0]?.metaData).toEqual({ priority: '10' });
    // The system is not filtered by visibility.
    expect(pm.queryIntentServices(1000, TOOL_ACTION).map((s) => s.packageName)).toContain('com.ex.hidden');
    expect(
      pm.queryIntentServices(client.uid, { action: TOOL_ACTION, packageName: 'com.ex.first' }),
    ).toHaveLength(1);
  });

  it("returns the caller's own unexported service", () => {
    const { pm } = newPm();
    const own = pm.install(
      app('com.ex.self', ALERTS, {
        services: [{ name: 'S', exported: false, intentFilters: [{ actions: ['a.b'] }] }],
      }),
    );
    expect(pm.queryIntentServices(own.uid, 'a.b').map((s) => s.name)).toEqual(['S']);
  });
});

describe('queryIntentActivities', () => {
  it('resolves an explicit component only if exported (or same UID) and visible; implicit by action', () => {
    const { pm } = newPm();
    const activities = [
      { name: 'ConfirmActivity', exported: true, intentFilters: [{ actions: ['org.example.CONFIRM'] }] },
      { name: 'InternalActivity', exported: false },
    ];
    const host = pm.install(app('com.ex.alerts', ALERTS, { activities }));
    const client = pm.install(app('com.ex.client', CLIENT, { queries: { packages: ['com.ex.alerts'] } }));
    const stranger = pm.install(app('com.ex.stranger', MALLORY));
    const explicit = (className: string) => ({ component: { packageName: 'com.ex.alerts', className } });
    expect(pm.queryIntentActivities(client.uid, explicit('ConfirmActivity')).map((a) => a.name)).toEqual([
      'ConfirmActivity',
    ]);
    expect(pm.queryIntentActivities(client.uid, explicit('InternalActivity'))).toEqual([]);
    expect(pm.queryIntentActivities(host.uid, explicit('InternalActivity'))).toHaveLength(1);
    expect(pm.queryIntentActivities(stranger.uid, explicit('ConfirmActivity'))).toEqual([]);
    expect(
      pm.queryIntentActivities(client.uid, { action: 'org.example.CONFIRM' }).map((a) => a.name),
    ).toEqual(['ConfirmActivity']);
    expect(
      pm.queryIntentActivities(client.uid, { action: 'org.example.CONFIRM', categories: ['x.Y'] }),
    ).toEqual([]);
  });
});
