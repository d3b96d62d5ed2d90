/**
 * User-level mistakes about behaviour and declarations: owner and existence checks, async work that
 * never ends or mishandles cancellation, confirmation screens that hide what is approved,
 * annotations that under-declare, outputs that break their schema, business rules dropped, ids that
 * collide, rows stored under the wrong owner.
 */
import type { JsonObject } from '../base/json.ts';
import type { MutationTool, ProviderTool, ReadTool, ToolCall } from '../index.ts';
import { ToolFailure } from '../index.ts';
import type { Variation } from './build.ts';
import { argsOf, DESIGN, has, hasWhere, idOf, type Mistake, patchCreate, patchTools } from './mistake-kit.ts';
import type { Row } from './spec.ts';
import type { Kit } from './tools.ts';

function hasPrepare(t: ProviderTool): t is MutationTool {
  return (t as Partial<MutationTool>).prepare !== undefined;
}
function hasPolicy(t: ProviderTool): t is MutationTool {
  return (t as Partial<MutationTool>).needsConfirmation !== undefined;
}

const asyncWrite = hasWhere((t) => t.async);
/** Every tool with a prepare (the async writes' long part) gets `prepare` instead. */
const patchPrepare = (prepare: NonNullable<MutationTool['prepare']>): Variation => ({
  tools: (tools) => tools.map((t) => (hasPrepare(t) ? { ...t, prepare } : t)),
});
const confirmed = hasWhere((t) => t.kind !== 'delete' && t.confirmation !== 'never');

async function anyRowOrConflict(kit: Kit, call: ToolCall, tx: Parameters<MutationTool['mutate']>[1]) {
  const id = idOf(kit, call);
  const row = (await tx.get(kit.names.table, id)) as Row | undefined;
  if (!row) throw new ToolFailure('CONFLICT', 'No such row.');
  return [id, row] as const;
}

export const BEHAVIOUR_MISTAKES: readonly Mistake[] = [
  {
    id: 'delete-no-owner-check',
    title: "delete checks only that the row exists, not whose it is: deletes another caller's row",
    needs:
      "model, when a second caller deletes the first caller's row by its id (`$OTHER:`: the id must be known to its creator)",
    floor: 1,
    killers: ['confirmation', 'lifecycle', 'versions', 'identity'],
    applies: has('delete'),
    variation: patchTools<MutationTool>(['delete'], (tool, kit) => ({
      ...tool,
      validate: async (call) =>
        (await call.context.storage.get(kit.names.table, idOf(kit, call))) ? [] : ['No such row.'],
      mutate: async (call, tx) => {
        const [id] = await anyRowOrConflict(kit, call, tx);
        await tx.delete(kit.names.table, id);
        return { deleted: true, [kit.names.idField]: id };
      },
    })),
  },
  {
    id: 'update-upserts',
    title: 'update without an existence check: creates the row when it is missing',
    needs: 'model / invariants (a row no add made)',
    floor: 1,
    killers: ['idempotency'],
    applies: has('update'),
    variation: patchTools<MutationTool>(['update'], (tool, kit) => ({
      ...tool,
      validate: () => [],
      mutate: async (call, tx) => {
        const id = idOf(kit, call);
        const row = ((await tx.get(kit.names.table, id)) as Row | undefined) ?? {
          owner_uid: call.caller.uid,
        };
        await tx.put(kit.names.table, id, { ...row, ...argsOf(call) });
        return { updated: true, [kit.names.idField]: id };
      },
    })),
  },
  {
    id: 'async-never-finishes',
    title: 'the long part of an async write never ends (it only stops when cancelled)',
    needs: 'operations-terminate / run-progress',
    floor: 1,
    killers: ['operations', 'idempotency'],
    applies: asyncWrite,
    variation: patchPrepare(async (call, work) => {
      for (let step = 1; ; step++) {
        await call.context.sleep(1_000);
        if (await work.progress(step, step + 1, 'still working')) return null;
      }
    }),
  },
  {
    id: 'cancel-as-failure',
    title: 'a cancelled async write throws a business failure instead of stopping',
    needs: 'an oracle that a cancelled operation ends cancelled',
    floor: 0,
    killers: ['operations'],
    applies: asyncWrite,
    variation: patchPrepare(async (call, work) => {
      await call.context.sleep(500);
      if (await work.progress(1, 2, 'half')) throw new ToolFailure('CONFLICT', 'Stopped.');
      await call.context.sleep(500);
      return null;
    }),
  },
  {
    id: 'screen-hides-args',
    title: 'the confirmation screen shows the action only, not the values approved',
    needs: 'confirmation-screen-shows',
    floor: 1,
    killers: ['confirmation', 'identity'],
    applies: (spec) => confirmed(spec) || has('delete')(spec),
    variation: patchTools<MutationTool>(['create', 'update', 'delete'], (tool) => ({
      ...tool,
      describeForConfirmation: () => ({
        object: tool.title,
        action: tool.description,
        parameters: [],
        irreversible: null,
      }),
    })),
  },
  {
    id: 'screen-wrong-object',
    title: 'the confirmation screen names another row than the one acted on',
    needs: 'confirmation-screen-shows',
    floor: 1,
    killers: ['confirmation', 'identity'],
    applies: has('delete'),
    variation: patchTools<MutationTool>(['delete'], (tool, kit) => ({
      ...tool,
      describeForConfirmation: () => ({
        object: `${kit.spec.entity.noun} ${kit.names.idPrefix}-0`,
        action: 'Delete',
        parameters: [['Row', `${kit.names.idPrefix}-0`]],
        irreversible: 'Deleted permanently.',
      }),
    })),
  },
  {
    id: 'policy-never-asks',
    title: 'provider_policy whose needsConfirmation never asks, even for the risky (urgent) args',
    needs:
      "runtime-risk-approved, judged by the fixture's approvalRequired (which args need approval, 3.4-12)",
    floor: 1,
    killers: ['confirmation'],
    applies: hasWhere((t) => t.confirmation === 'provider_policy'),
    variation: {
      tools: (tools) => tools.map((t) => (hasPolicy(t) ? { ...t, needsConfirmation: () => false } : t)),
    },
  },
  {
    id: 'confirmation-under-declared',
    title: 'a write the design confirms is declared confirmation: never',
    needs: `${DESIGN}; or authorized-effect / runtime-risk-approved when approval is declared with the effect`,
    floor: 1,
    killers: ['confirmation'],
    applies: hasWhere((t) => t.kind !== 'delete' && t.confirmation !== 'never'),
    variation: patchTools<MutationTool>(['create', 'update'], (tool) =>
      tool.annotations.confirmation === 'never'
        ? tool
        : { ...tool, annotations: { ...tool.annotations, confirmation: 'never', risk: 'low' } },
    ),
  },
  {
    id: 'destructive-not-confirmed',
    title: 'delete declared confirmation: never (3.4-09; the SDK disables the tool at start-up)',
    needs: 'fixture resolution: a tool the provider disabled at start-up is refused, naming the issue',
    floor: 1,
    killers: ['idempotency'],
    applies: has('delete'),
    variation: patchTools<MutationTool>(['delete'], (tool) => ({
      ...tool,
      annotations: { ...tool.annotations, confirmation: 'never' },
    })),
  },
  {
    id: 'effect-under-declared',
    title: 'delete declared as effect update, not destructive',
    needs: DESIGN,
    floor: 1,
    killers: ['idempotency'],
    applies: has('delete'),
    variation: patchTools<MutationTool>(['delete'], (tool) => ({
      ...tool,
      annotations: { ...tool.annotations, effect: 'update', destructive: false },
    })),
  },
  {
    id: 'read-tool-writes',
    title: "a read tool records the caller's last view in storage (a read that writes, 3.4-08)",
    needs: 'storage-read-writes (a read request commits no business writes, 3.4-08)',
    floor: 1,
    killers: ['idempotency', 'versions'],
    applies: has('list', 'get', 'export'),
    variation: patchTools<ReadTool>(['list', 'get', 'export'], (tool, kit) => ({
      ...tool,
      read: async (call) => {
        await call.context.storage.put(kit.names.meta, `viewed.${call.caller.uid}`, call.requestKey);
        return tool.read(call);
      },
    })),
  },
  {
    id: 'output-breaks-schema',
    title: 'create returns its id as a number, breaking its own outputSchema',
    needs: 'app-internal-error (valid args answered INTERNAL_ERROR: the SDK refused the bad output)',
    floor: 1,
    killers: ['confirmation', 'idempotency', 'consumer'],
    applies: has('create'),
    variation: patchTools<MutationTool>(['create'], (tool, kit) => ({
      ...tool,
      mutate: async (call, tx) => {
        const id = await kit.newId(call, tx);
        await tx.put(kit.names.table, id, kit.rowOf(call, id));
        return { [kit.names.idField]: id.length };
      },
    })),
  },
  {
    id: 'business-rule-dropped',
    title: "create's business rule is not enforced (validate removed)",
    needs: 'business-refusal',
    floor: 1,
    killers: ['confirmation', 'consumer'],
    applies: has('create'),
    variation: patchTools<MutationTool>(['create'], (tool) => {
      const { validate: _dropped, ...rest } = tool;
      return rest;
    }),
  },
  {
    id: 'id-from-clock',
    title: 'ids from the clock (currentTimeMillis): two adds in one millisecond share an id',
    needs: 'invariant one-row-per-add (two adds in one millisecond share an id)',
    floor: 1,
    killers: ['idempotency'],
    applies: has('create'),
    variation: patchCreate(
      (call, tx, kit, id) => tx.put(kit.names.table, id, kit.rowOf(call, id)),
      (call, _tx, kit) => `${kit.names.idPrefix}-${call.context.currentTimeMillis()}`,
    ),
  },
  {
    id: 'owner-constant',
    title: 'create stores every row under one owner (uid 0) instead of the caller',
    needs: 'invariant rows-owned-by-creators / model',
    floor: 1,
    killers: ['idempotency', 'identity'],
    applies: has('create'),
    variation: patchCreate((call, tx, kit, id) =>
      tx.put(kit.names.table, id, { ...kit.rowOf(call, id), owner_uid: 0 }),
    ),
  },
  {
    id: 'validate-throws',
    title: 'validate reads an optional field without checking it is there (throws on minimal args)',
    needs: 'app-internal-error (valid args answered INTERNAL_ERROR)',
    floor: 1,
    killers: ['idempotency', 'consumer'],
    applies: (spec) => spec.entity.fields.some((f) => f.optional),
    variation: patchTools<MutationTool>(['create'], (tool, kit) => ({
      ...tool,
      validate: (call) => {
        const optional = kit.spec.entity.fields.find((f) => f.optional)?.name ?? '';
        const value = (call.args as JsonObject)[optional] as unknown as { toString(): string };
        return value.toString() === '' ? ['empty'] : [];
      },
    })),
  },
];
