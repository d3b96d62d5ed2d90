import { describe, expect, it } from 'vitest';
import { IllegalArgumentException, SimUsageError } from '../core/errors.ts';
import { FILL_IN_COMPONENT, Intent } from './intent.ts';
import {
  FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT,
  FLAG_CANCEL_CURRENT,
  FLAG_IMMUTABLE,
  FLAG_MUTABLE,
  FLAG_NO_CREATE,
  FLAG_UPDATE_CURRENT,
  PendingIntent,
  PendingIntentRegistry,
  type PendingIntentRequest,
} from './pending-intent.ts';

function confirmIntent(requestId: string): Intent {
  const i = Intent.explicit('com.example.app', 'ConfirmActivity');
  i.extras.putString('request_id', requestId);
  return i;
}

function req(
  intent: Intent,
  flags: number,
  overrides: Partial<PendingIntentRequest> = {},
): PendingIntentRequest {
  return {
    creatorUid: 10001,
    creatorPackage: 'com.example.app',
    targetSdk: 34,
    requestCode: 0,
    intent,
    flags,
    ...overrides,
  };
}

describe('PendingIntent token identity (d.a.c PendingIntent: extras are not identity)', () => {
  it('same component, action, data and request code returns the SAME token with the OLD extras', () => {
    const reg = new PendingIntentRegistry();
    const a = reg.getActivity(req(confirmIntent('r1'), FLAG_IMMUTABLE));
    const b = reg.getActivity(req(confirmIntent('r2'), FLAG_IMMUTABLE));
    expect(b).toBe(a);
    expect(b?.intent.extras.getString('request_id')).toBe('r1');
  });

  it('FLAG_UPDATE_CURRENT replaces the extras of the one shared token (every holder sees r2)', () => {
    const reg = new PendingIntentRegistry();
    const a = reg.getActivity(req(confirmIntent('r1'), FLAG_IMMUTABLE));
    reg.getActivity(req(confirmIntent('r2'), FLAG_IMMUTABLE | FLAG_UPDATE_CURRENT));
    expect(a?.intent.extras.getString('request_id')).toBe('r2');
  });

  it('a different request code (or data) gives a distinct token', () => {
    const reg = new PendingIntentRegistry();
    const a = reg.getActivity(req(confirmIntent('r1'), FLAG_IMMUTABLE, { requestCode: 1 }));
    const b = reg.getActivity(req(confirmIntent('r2'), FLAG_IMMUTABLE, { requestCode: 2 }));
    expect(b).not.toBe(a);
    const withData = confirmIntent('r3');
    withData.data = 'cetp://confirm/r3';
    expect(reg.getActivity(req(withData, FLAG_IMMUTABLE, { requestCode: 1 }))).not.toBe(a);
  });

  it('FLAG_CANCEL_CURRENT cancels the old token; FLAG_NO_CREATE returns null when none exists', () => {
    const reg = new PendingIntentRegistry();
    const a = reg.getActivity(req(confirmIntent('r1'), FLAG_IMMUTABLE));
    const b = reg.getActivity(req(confirmIntent('r2'), FLAG_IMMUTABLE | FLAG_CANCEL_CURRENT));
    expect(a?.canceled).toBe(true);
    expect(b).not.toBe(a);
    const other = Intent.explicit('com.example.app', 'Other');
    expect(reg.getActivity(req(other, FLAG_IMMUTABLE | FLAG_NO_CREATE))).toBeNull();
  });

  it("the creator UID and package are the system's record, not anything in the Intent", () => {
    const reg = new PendingIntentRegistry();
    const i = confirmIntent('r1');
    i.extras.putString('creator', 'com.evil');
    const r = reg.getActivity(req(i, FLAG_IMMUTABLE));
    expect(r?.creatorUid).toBe(10001);
    expect(r?.creatorPackage).toBe('com.example.app');
  });
});

describe('PendingIntent flag rules by target SDK (AOSP 6f7d23a; MutableImplicitPendingIntent)', () => {
  it('target 31+ without FLAG_IMMUTABLE or FLAG_MUTABLE throws IllegalArgumentException', () => {
    const reg = new PendingIntentRegistry();
    expect(() => reg.getActivity(req(confirmIntent('r'), 0, { targetSdk: 31 }))).toThrow(
      IllegalArgumentException,
    );
    expect(reg.getActivity(req(confirmIntent('r'), 0, { targetSdk: 30 }))).not.toBeNull();
  });

  it('target 34+ rejects a mutable implicit Intent unless FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT', () => {
    const reg = new PendingIntentRegistry();
    const implicit = new Intent({ action: 'com.example.CONFIRM' });
    expect(() => reg.getActivity(req(implicit, FLAG_MUTABLE))).toThrow(IllegalArgumentException);
    expect(reg.getActivity(req(implicit, FLAG_MUTABLE, { targetSdk: 33 }))).not.toBeNull();
    expect(reg.getActivity(req(implicit, FLAG_MUTABLE | FLAG_ALLOW_UNSAFE_IMPLICIT_INTENT))).not.toBeNull();
  });

  it('both FLAG_IMMUTABLE and FLAG_MUTABLE is an error', () => {
    const reg = new PendingIntentRegistry();
    expect(() => reg.getActivity(req(confirmIntent('r'), FLAG_IMMUTABLE | FLAG_MUTABLE))).toThrow(
      IllegalArgumentException,
    );
  });
});

describe('Intent.fillIn (what the holder of a mutable PendingIntent can change)', () => {
  it('fills unset fields, never overrides set ones, and the base extras win', () => {
    const base = new Intent({ action: 'A' });
    base.extras.putString('amount', '10');
    const attack = new Intent({ action: 'B', data: 'evil://x', package: 'com.evil' });
    attack.extras.putString('amount', '9999');
    attack.extras.putString('payee', 'attacker');
    base.fillIn(attack, 0);
    expect(base.action).toBe('A');
    expect(base.data).toBe('evil://x');
    expect(base.package).toBe('com.evil');
    expect(base.extras.getString('amount')).toBe('10');
    expect(base.extras.getString('payee')).toBe('attacker');
  });

  it('the component is only filled with FILL_IN_COMPONENT', () => {
    const base = new Intent({ action: 'A' });
    const attack = Intent.explicit('com.evil', 'Steal');
    base.fillIn(attack, 0);
    expect(base.component).toBeNull();
    base.fillIn(attack, FILL_IN_COMPONENT);
    expect(base.component?.packageName).toBe('com.evil');
  });
});

describe('a token and its system record (pending-intent-token.ts, pending-intent.ts)', () => {
  it("the registry's token resolves its record's Intent, and recordOf gives that record back", () => {
    const reg = new PendingIntentRegistry();
    const record = reg.getActivity(req(confirmIntent('r1'), FLAG_IMMUTABLE));
    if (!record) throw new Error('no record');
    const seen: string[] = [];
    const token = reg.token(record, (intent, uid) => {
      seen.push(`${intent.component?.className} ${uid}`);
      return intent.component ? [intent.component] : [];
    });
    expect(token.queryIntentComponents()).toEqual([
      { packageName: 'com.example.app', className: 'ConfirmActivity' },
    ]);
    expect(seen).toEqual(['ConfirmActivity 10001']);
    expect(reg.recordOf(token)).toBe(record);
    expect(token.sameToken(reg.token(record, () => []))).toBe(true);
  });

  it('recordOf refuses a token the system did not make (a look-alike record)', () => {
    const reg = new PendingIntentRegistry();
    const fake = new PendingIntent(
      {
        id: 1,
        creatorUid: 10001,
        creatorPackage: 'com.example.app',
        flags: FLAG_IMMUTABLE,
        canceled: false,
        creatorTargetSdk: 34,
        creatorAllowsBackgroundStart: false,
        intent: { component: null, package: 'com.example.app' },
      },
      () => [],
    );
    expect(() => reg.recordOf(fake)).toThrow(SimUsageError);
  });
});
