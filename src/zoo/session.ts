/**
 * One scripted session of a zoo app on a simulated device, judged by the app's model and invariants
 * (model.ts) directly: the reference consumer adds two rows, updates and deletes the first, updates
 * a row that does not exist, and reads; then a second calling app adds its own row, reads, and tries
 * to change and delete the first app's row. A user who approves every screen; no faults. The same
 * model and invariants the app's fixture carries into every fuzz run judge it: a check of the model
 * itself on correct apps (`modelProblems`, none expected; model.test.ts), and, for a mistake the
 * fuzzing missed, whether these deliberate calls would show it (`modelSees`).
 */
import type { JsonValue } from '../base/json.ts';
import type { AppState } from '../index.ts';
import { bridgeIn, CONSUMER_PACKAGE, consumerApp, consumerPackage, World } from '../index.ts';
import { argPool } from './args.ts';
import { buildApp, type Variation } from './build.ts';
import { type Applied, brokenInvariants, historyOf, stateDifference } from './model.ts';
import { type AppSpec, namesOf, type ToolKind } from './spec.ts';

/** A second calling app (another UID). */
const OTHER_PACKAGE = 'com.zoo.other.agent';
const READS = ['list', 'get', 'export'] as const;

export interface Session {
  readonly history: readonly Applied[];
  readonly tables: AppState;
}

export async function runSession(spec: AppSpec, variation: Variation = {}): Promise<Session> {
  const app = buildApp(spec, variation);
  const names = namesOf(spec);
  const world = new World({ seed: 3, user: { kind: 'scripted', decisions: [], otherwise: 'approve' } });
  app.defined.install(world);
  world.install(consumerPackage(), consumerApp());
  const history: Applied[] = [];
  const has = (kind: ToolKind) => spec.tools.some((t) => t.kind === kind);
  const first = spec.entity.fields[0]?.name ?? '';
  world.install(consumerPackage({ packageName: OTHER_PACKAGE }), consumerApp());
  const call = async (agent: ReturnType<typeof bridgeIn>, uid: number, tool: string, args: JsonValue) => {
    const outcome = await agent.execute(names.packageName, tool, args as never);
    if (outcome.kind !== 'ok') return null;
    history.push({ tool, args, result: outcome.untrusted.value, callerUid: uid });
    return outcome.untrusted.value as Record<string, JsonValue>;
  };
  const [full, minimal] = argPool(spec, names, 'create');
  // The first caller's rows, handed to the second once the first is done.
  const firstDone: { kept?: JsonValue } = {};
  world.spawnIn(CONSUMER_PACKAGE, 'agent', async (ctx) => {
    const agent = bridgeIn(ctx);
    const own = (tool: string, args: JsonValue) => call(agent, ctx.uid, tool, args);
    const id = (await own(names.tool('create'), full as JsonValue))?.[names.idField] ?? null;
    const kept = (await own(names.tool('create'), minimal as JsonValue))?.[names.idField] ?? null;
    if (typeof id === 'string' && has('update'))
      await own(names.tool('update'), { [names.idField]: id, [first]: 'renamed' });
    if (has('update'))
      await own(names.tool('update'), { [names.idField]: `${names.idPrefix}-999`, [first]: 'ghost' });
    if (typeof id === 'string' && has('delete')) await own(names.tool('delete'), { [names.idField]: id });
    for (const kind of READS)
      if (has(kind)) await own(names.tool(kind), kind === 'get' ? { [names.idField]: String(id) } : {});
    firstDone.kept = kept;
  });
  // A second caller: adds its own row, reads, and tries to change and delete the first caller's row.
  world.spawnIn(OTHER_PACKAGE, 'agent', async (ctx) => {
    // Waits in virtual time (a plain promise would stall the simulated scheduler).
    while (!('kept' in firstDone)) await ctx.sleep(1_000);
    const { kept } = firstDone;
    const agent = bridgeIn(ctx);
    const own = (tool: string, args: JsonValue) => call(agent, ctx.uid, tool, args);
    await own(names.tool('create'), full as JsonValue);
    for (const kind of READS)
      if (has(kind)) await own(names.tool(kind), kind === 'get' ? { [names.idField]: String(kept) } : {});
    if (typeof kept === 'string' && has('update'))
      await own(names.tool('update'), { [names.idField]: kept, [first]: 'theirs' });
    if (typeof kept === 'string' && has('delete')) await own(names.tool('delete'), { [names.idField]: kept });
  });
  await world.run();
  const store = world.storage(names.packageName);
  return { history, tables: { [names.table]: Object.fromEntries(store.snapshot(names.table)) } };
}

/** What the model and invariants find wrong in a session: [] when nothing. */
export function sessionProblems(spec: AppSpec, session: Session): string[] {
  const difference = stateDifference(spec, session.history, session.tables);
  const broken = brokenInvariants(
    spec,
    session.tables,
    historyOf(namesOf(spec).packageName, session.history),
  );
  return [...(difference ? [`model: ${difference}`] : []), ...broken];
}
