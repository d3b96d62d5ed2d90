/**
 * Issue 14, done-when: a provider written as a plain ContentProvider — not the SDK — that declares
 * its business effects through the public effect API (AppContext.declareEffect) is judged by the
 * ground-truth oracles. Each planted bug (a double effect, an effect without the user's approval, an
 * effect on another user's data, a screen that hides the args, args swapped after approval) is
 * caught by its oracle; the same provider without the plants passes every oracle.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../src/base/json.ts';
import type { CheckContext } from '../src/check/checker.ts';
import { ALL_CHECKERS, runCheckers } from '../src/check/checkers/index.ts';
import { observe } from '../src/check/observation.ts';
import { CETP_PROVIDER, providerPackage } from '../src/providers/sdk/manifest.ts';
import { AGENT, agentPackage } from '../src/providers/testing.ts';
import type { AppContext } from '../src/sim/app/context.ts';
import { Bundle } from '../src/sim/binder/bundle.ts';
import { ContentProvider } from '../src/sim/content/content-provider.ts';
import { Activity, RESULT_OK } from '../src/sim/ui/activity.ts';
import { Intent } from '../src/sim/ui/intent.ts';
import { FLAG_IMMUTABLE } from '../src/sim/ui/pending-intent.ts';
import { World } from '../src/sim/world.ts';

const PKG = 'com.example.ledger';
const AUTHORITY = 'com.example.ledger.cetp';
const CONFIRM = 'LedgerConfirmActivity';
const TOOL = 'move_funds';

type Plant = 'double' | 'unapproved' | 'cross-user' | 'vague-screen' | 'args-swap' | 'ignores-denial';
type Args = { account: string; amount: number };
type Confirmation = { uid: number; requestId: string; args: Args; state: string };

/** Account `ACC-<uid>` belongs to that UID. */
const ownerOf = (account: string): number => Number(account.slice('ACC-'.length));

function reply(requestId: string, fields: Record<string, string>): Bundle {
  const b = new Bundle();
  b.putInt('protocol_version', 2);
  b.putString('request_id', requestId);
  for (const [k, v] of Object.entries(fields)) b.putString(k, v);
  if (fields.status === 'error') {
    b.putString('error_message', 'The ledger could not do that.');
    b.putBoolean('retryable', false);
  }
  return b;
}

/** A ledger with one write tool, move_funds, that needs the user's confirmation every time. */
class LedgerProvider extends ContentProvider {
  constructor(private readonly plants: ReadonlySet<Plant>) {
    super();
  }

  override async call(_authority: string, method: string, _arg: string | null, extras: Bundle | null) {
    const uid = this.context.binder.getCallingUid(); // at entry, before any await
    const requestId = extras?.getString('request_id') ?? '';
    if (method !== 'execute_tool' || !extras)
      return reply(requestId, { status: 'error', error_code: 'METHOD_NOT_FOUND' });
    const args = JSON.parse(extras.getString('args') ?? '{}') as Args;
    const key = `${uid}|${requestId}`;
    const store = this.context.storage;
    if (!this.plants.has('double')) {
      const done = await store.get('done', key);
      if (done !== undefined)
        return reply(requestId, { status: 'success', data: JSON.stringify({ kind: 'inline', value: done }) });
    }
    if (!this.plants.has('cross-user') && ownerOf(args.account) !== uid)
      return reply(requestId, { status: 'error', error_code: 'PERMISSION_DENIED' });
    const token = extras.getString('resume_token');
    if (!this.plants.has('unapproved')) {
      if (token === null) return this.askUser(uid, requestId, args);
      const c = (await store.get('confirmations', token)) as Confirmation | undefined;
      const sameArgs = JSON.stringify(c?.args) === JSON.stringify(args) || this.plants.has('args-swap');
      if (c?.state !== 'approved' || c.uid !== uid || c.requestId !== requestId || !sameArgs)
        return reply(requestId, { status: 'error', error_code: 'INVALID_REQUEST' });
    }
    const result = await store.transaction('move funds', async (tx) => {
      const balance = ((await tx.get('balances', args.account)) as number | undefined) ?? 1_000;
      await tx.put('balances', args.account, balance - args.amount);
      const value = { account: args.account, balance: balance - args.amount };
      await tx.put('done', key, value);
      this.context.declareEffect(
        {
          tool: TOOL,
          requestId,
          callerUid: uid,
          ownerUid: ownerOf(args.account),
          object: args.account,
          args,
        },
        tx,
      );
      return value;
    });
    return reply(requestId, { status: 'success', data: JSON.stringify({ kind: 'inline', value: result }) });
  }

  private async askUser(uid: number, requestId: string, args: Args): Promise<Bundle> {
    const id = this.context.rng.hex(8);
    await this.context.storage.put('confirmations', id, { uid, requestId, args, state: 'pending' });
    const intent = Intent.explicit(PKG, CONFIRM, { data: `ledger://confirm/${id}` });
    const pi = this.context.getActivityPendingIntent(0, intent, FLAG_IMMUTABLE);
    const b = reply(requestId, { status: 'error', error_code: 'USER_ACTION_REQUIRED', resume_token: id });
    b.putPendingIntent('resolution', pi);
    return b;
  }
}

class LedgerConfirmActivity extends Activity {
  constructor(private readonly plants: ReadonlySet<Plant>) {
    super();
  }

  override async onCreate(): Promise<void> {
    const id = (this.intent.data ?? '').slice('ledger://confirm/'.length);
    const c = (await this.context.storage.get('confirmations', id)) as Confirmation | undefined;
    if (!c) return this.finish();
    const screen = this.plants.has('vague-screen')
      ? { title: 'Ledger', lines: ['Moves money between accounts.'] }
      : {
          title: 'Move funds?',
          lines: [`From account: ${c.args.account}`, `Amount: ${c.args.amount}`, 'This cannot be undone.'],
        };
    const answer = await this.show(screen);
    // Planted "ignores-denial": whatever the user answered, the ledger records an approval.
    if (answer === 'approve' || this.plants.has('ignores-denial')) {
      await this.context.storage.put('confirmations', id, {
        ...c,
        state: 'approved',
      } as unknown as JsonValue);
      this.setResult(RESULT_OK);
    }
    this.finish();
  }
}

/** The agent's side, on the wire: ask, let the user confirm, resume; then retry the same request. */
async function agent(ctx: AppContext, plants: ReadonlySet<Plant>): Promise<void> {
  const client = await ctx.contentResolver.acquireUnstableContentProviderClient(AUTHORITY);
  if (!client) throw new Error('no ledger');
  const send = (requestId: string, args: Args, resumeToken: string | null) => {
    const b = new Bundle();
    b.putInt('protocol_version', 2);
    // The ledger checks no session or deadline, but a request without the §4.1 envelope is
    // malformed (malformed-refused): the agent sends a well-formed one.
    b.putString('session_token', 'ledger-session');
    b.putString('request_id', requestId);
    b.putLong('deadline_at_ms', ctx.currentTimeMillis() + 60_000);
    b.putString('tool_name', TOOL);
    b.putString('args', JSON.stringify(args));
    if (resumeToken !== null) b.putString('resume_token', resumeToken);
    return client.call('execute_tool', null, b);
  };
  const run = async (args: Args, resumeArgs: Args = args) => {
    const requestId = ctx.seededUuid();
    const first = await send(requestId, args, null);
    if (first?.getString('error_code') === 'USER_ACTION_REQUIRED') {
      const pi = first.getPendingIntent('resolution');
      // Target 34: the sender lends its background-start rights only with this opt-in.
      if (pi)
        await ctx.startIntentSenderForResult(pi, null, 0, {
          pendingIntentBackgroundActivityStartAllowed: true,
        });
      await send(requestId, resumeArgs, first.getString('resume_token'));
    }
    // The reply was "lost": the agent sends the same request again, as the protocol lets it.
    await send(requestId, resumeArgs, first?.getString('resume_token') ?? null);
  };
  await run({ account: `ACC-${ctx.uid}`, amount: 25 });
  // Someone else's account: refused by a correct ledger.
  await run({ account: 'ACC-10999', amount: 5 });
  // Args changed between approval and resume: refused by a correct ledger.
  if (plants.has('args-swap'))
    await run({ account: `ACC-${ctx.uid}`, amount: 1 }, { account: `ACC-${ctx.uid}`, amount: 900 });
}

const CONTEXT: CheckContext = {
  providersUnderTest: [PKG],
  consumers: [],
  toolEffects: new Map([[`${PKG}|${TOOL}`, 'write']]),
  toolScopes: new Map(),
  toolConfirmations: new Map([[`${PKG}|${TOOL}`, 'always']]),
  userGrantedScopes: new Map(),
};

async function judge(
  plants: readonly Plant[],
  answer: 'approve' | 'deny' = 'approve',
): Promise<{ oracles: string[]; effects: number }> {
  const set = new Set(plants);
  const world = new World({
    recordContentCalls: true,
    user: { kind: 'policy', decide: () => answer, thinkMs: 500 },
  });
  world.install(
    providerPackage({
      packageName: PKG,
      authority: AUTHORITY,
      versions: [2],
      activities: [{ name: CONFIRM, exported: false }],
    }),
    () => ({
      providers: { [CETP_PROVIDER]: new LedgerProvider(set) },
      activities: { [CONFIRM]: () => new LedgerConfirmActivity(set) },
    }),
  );
  world.install(agentPackage(), () => ({}));
  world.spawnIn(AGENT, 'agent', (ctx) => agent(ctx, set));
  const report = await world.run();
  expect(report.outcome.kind).toBe('completed');
  const violations = runCheckers(observe(world, report), CONTEXT, ALL_CHECKERS);
  return {
    oracles: [...new Set(violations.map((v) => v.checker))].sort(),
    effects: world.truth.effects.length,
  };
}

describe('a plain ContentProvider judged from the ground truth (issue 14, done-when)', () => {
  it('without plants: one effect, approved by the user, on its own account; every oracle passes', async () => {
    expect(await judge([])).toEqual({ oracles: [], effects: 1 });
  });

  it('CETP-6-01: a double effect (no de-duplication of a re-sent request) fails single-effect', async () => {
    expect((await judge(['double'])).oracles).toContain('single-effect');
  });

  it('CETP-4.3-08: an effect without the user approving it fails approval-binding', async () => {
    const { oracles } = await judge(['unapproved']);
    expect(oracles).toContain('approval-binding');
  });

  it("CETP-7.1-02: an effect on another user's account fails effect-on-own-data", async () => {
    expect((await judge(['cross-user'])).oracles).toContain('effect-on-own-data');
  });

  it('CETP-7.2-06: a confirmation screen that hides the args fails confirmation-screen-shows', async () => {
    expect((await judge(['vague-screen'])).oracles).toEqual(
      expect.arrayContaining(['approval-binding', 'confirmation-screen-shows']),
    );
  });

  it('a user who denies: no effect, every oracle passes; a ledger that records an approval anyway fails approval-binding', async () => {
    expect(await judge([], 'deny')).toEqual({ oracles: [], effects: 0 });
    expect((await judge(['ignores-denial'], 'deny')).oracles).toContain('approval-binding');
  });

  it('CETP-4.3-14: an effect on other args than the user approved fails approval-binding', async () => {
    expect((await judge(['args-swap'])).oracles).toContain('approval-binding');
  });
});
