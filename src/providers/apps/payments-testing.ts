/**
 * Shared helpers of the payments tests (payments*.test.ts): a seeded world with the payments app
 * and two agents, running agent bodies to completion, and the raw calls the tests repeat.
 */
import { expect } from 'vitest';
import type { Bundle } from '../../sim/binder/bundle.ts';
import type { UserDecision } from '../../sim/ui/user.ts';
import { World } from '../../sim/world.ts';
import type { ProviderOptions } from '../sdk/types.ts';
import { AGENT, agentPackage, data, OTHER_AGENT, RawClient, status } from '../testing.ts';
import { PAYMENTS_AUTHORITY, paymentsApp, paymentsPackage, seedAccounts } from './payments.ts';

export const PAYEE = 'DE89370400440532013000';
export const NO_ASYNC = ['cancellation', 'large_results'];

export function paymentsWorld(
  decisions: readonly UserDecision[] = [],
  options: Partial<ProviderOptions> = {},
): World {
  const world = new World({
    recordContentCalls: true,
    user: { kind: 'scripted', decisions, thinkMs: 500 },
  });
  world.install(paymentsPackage(), paymentsApp(options));
  world.install(agentPackage(), () => ({}));
  world.install(agentPackage(OTHER_AGENT), () => ({}));
  seedAccounts(world, AGENT, [
    { id: 'DE-CHK-1', balance: 1500 },
    { id: 'DE-SAV-1', balance: 100 },
  ]);
  return world;
}

export type AgentBody = (client: RawClient) => Promise<void>;

/** Runs each agent's body as a thread of its app, then the world to completion. */
export async function run(world: World, agents: Readonly<Record<string, AgentBody>>) {
  const failures: unknown[] = [];
  for (const [pkg, body] of Object.entries(agents)) {
    world.spawnIn(pkg, 'test', async (ctx) => {
      try {
        await body(new RawClient(ctx, PAYMENTS_AUTHORITY));
      } catch (error) {
        failures.push(error);
      }
    });
  }
  const report = await world.run();
  if (failures.length > 0) throw failures[0];
  expect(report.outcome).toEqual({ kind: 'completed' });
  return report;
}

/** Runs one agent's body after a plain negotiate (run with that agent alone). */
export function runNegotiated(world: World, body: AgentBody, agent = AGENT) {
  return run(world, {
    [agent]: async (c) => {
      await c.negotiate();
      await body(c);
    },
  });
}

export function transferArgs(over: Record<string, unknown> = {}) {
  return {
    from_account: 'DE-CHK-1',
    to_iban: PAYEE,
    amount: 250,
    currency: 'EUR',
    reference: 'Rent',
    ...over,
  };
}

export async function balances(c: RawClient): Promise<Record<string, number>> {
  const reply = await c.execute('get_balance', {});
  const value = data(reply).value as { accounts: { account_id: string; balance: number }[] };
  return Object.fromEntries(value.accounts.map((a) => [a.account_id, a.balance]));
}

/** The transfer re-sent under `requestId` answers `expected`, and no money left the checking account. */
export async function expectNoTransfer(c: RawClient, requestId: string, expected: string): Promise<void> {
  expect(status(await c.execute('transfer', transferArgs(), { requestId }))).toBe(expected);
  expect(await balances(c)).toMatchObject({ 'DE-CHK-1': 1500 });
}

/** Follows AUTH_REQUIRED and USER_ACTION_REQUIRED with the same request_id; returns every reply. */
export async function executeThroughResolutions(
  c: RawClient,
  tool: string,
  args: unknown,
  requestId: string,
): Promise<Bundle[]> {
  const replies = [await c.execute(tool, args, { requestId })];
  for (;;) {
    const last = replies.at(-1) as Bundle;
    const code = last.getString('error_code');
    if (code !== 'AUTH_REQUIRED' && code !== 'USER_ACTION_REQUIRED') return replies;
    await c.resolve(last);
    replies.push(
      await c.execute(tool, args, { requestId, resumeToken: last.getString('resume_token') ?? '' }),
    );
  }
}

/**
 * Negotiates, then runs `tool` (a transfer unless named) through its grant and confirmation up to
 * `accepted`: the request id (seeded), the operation id and the accepted reply.
 */
export async function acceptedOperation(
  c: RawClient,
  args: Record<string, unknown> = transferArgs(),
  tool = 'transfer',
): Promise<{ requestId: string; operationId: string; accepted: Bundle }> {
  await c.negotiate();
  const requestId = c.ctx.seededUuid();
  const accepted = (await executeThroughResolutions(c, tool, args, requestId)).at(-1) as Bundle;
  return { requestId, operationId: String(data(accepted).operation_id), accepted };
}

export function getOperation(c: RawClient, requestId: string, operationId: string): Promise<Bundle> {
  return c.method('get_operation', (b) => b.putString('operation_id', operationId), requestId);
}

export function cancelOperation(c: RawClient, requestId: string, operationId: string): Promise<Bundle> {
  return c.method('cancel_operation', (b) => b.putString('operation_id', operationId), requestId);
}

/** A fresh payments world where the user approves twice: a transfer accepted as an operation, then `body`. */
export async function afterAcceptedTransfer(
  body: (c: RawClient, requestId: string, operationId: string) => Promise<void>,
): Promise<World> {
  const world = paymentsWorld(['approve', 'approve']);
  await run(world, {
    [AGENT]: async (c) => {
      const { requestId, operationId } = await acceptedOperation(c);
      await body(c, requestId, operationId);
    },
  });
  return world;
}

/** Polls until a terminal state; returns every status seen. */
export async function pollToEnd(c: RawClient, requestId: string, operationId: string) {
  const seen: Record<string, unknown>[] = [];
  for (;;) {
    const d = data(await getOperation(c, requestId, operationId));
    seen.push(d);
    if (['succeeded', 'failed', 'cancelled'].includes(String(d.state))) return seen;
    await c.ctx.sleep(Number(d.poll_after_ms ?? 1000));
  }
}
