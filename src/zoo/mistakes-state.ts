/**
 * User-level mistakes about state and where it is written: outside the transaction, in prepare,
 * twice per request, in memory, the wrong value, another caller's rows; and about who may write.
 */
import type { MutationTool, ProviderTool, ReadTool } from '../index.ts';
import type { Variation } from './build.ts';
import {
  createMutate,
  DESIGN,
  has,
  kindOf,
  type Mistake,
  patchCreate,
  patchTools,
  processMemory,
  readAnswer,
} from './mistake-kit.ts';
import { type AppSpec, isRead, type Row } from './spec.ts';

/** What the two authorization mistakes share: the oracle that catches them and the apps they apply to. */
const UNAUTHORIZED_WRITE = {
  needs: 'authorized-effect',
  floor: 1,
  killers: ['identity', 'idempotency', 'confirmation'],
  applies: (spec: AppSpec) => spec.auth !== 'free-all',
} as const;

export const STATE_MISTAKES: readonly Mistake[] = [
  {
    id: 'prepare-write',
    title: 'create stores its row in prepare through context.storage, outside the transaction',
    needs: 'storage-write-outside-transaction',
    floor: 1,
    killers: ['idempotency', 'lifecycle', 'operations'],
    applies: has('create'),
    variation: patchTools<MutationTool>(['create'], (tool, kit) => ({
      ...tool,
      prepare: async (call) => {
        const id = `${kit.names.idPrefix}-${call.context.seededUuid()}`;
        await call.context.storage.put(kit.names.table, id, kit.rowOf(call, id));
        return id;
      },
      mutate: async (_call, _tx, prepared) => ({ [kit.names.idField]: prepared }),
    })),
  },
  {
    id: 'effect-in-prepare',
    title: 'the external effect (a notification) is declared in prepare, before the commit point',
    needs: 'single-effect / cancelled-has-no-effect',
    floor: 1,
    killers: ['idempotency', 'operations', 'lifecycle'],
    applies: has('create'),
    variation: patchTools<MutationTool>(['create'], (tool) => ({
      ...tool,
      prepare: async (call) => {
        call.context.declareEffect({
          tool: tool.name,
          requestId: call.requestKey,
          callerUid: call.caller.uid,
          ownerUid: call.caller.uid,
          args: call.args,
          approvalRequired: tool.annotations.confirmation === 'always',
        });
        return null;
      },
    })),
  },
  {
    id: 'counter-outside-tx',
    title: "create counts the caller's adds in validate (context.storage.put): a retry counts twice",
    needs: 'storage-single-effect / storage-write-outside-transaction',
    floor: 1,
    killers: ['idempotency', 'lifecycle'],
    applies: has('create'),
    variation: patchTools<MutationTool>(['create'], (tool, kit) => ({
      ...tool,
      validate: async (call) => {
        const key = String(call.caller.uid);
        const n =
          ((await call.context.storage.get(kit.names.meta, `adds.${key}`)) as number | undefined) ?? 0;
        await call.context.storage.put(kit.names.meta, `adds.${key}`, n + 1);
        return (await tool.validate?.(call)) ?? [];
      },
    })),
  },
  {
    id: 'storage-in-mutate',
    title: 'mutate writes through context.storage instead of tx (waits on its own write lock)',
    needs: 'run-progress (the deadlock)',
    floor: 1,
    killers: ['idempotency', 'confirmation'],
    applies: has('create'),
    variation: patchCreate((call, _tx, kit, id) =>
      call.context.storage.put(kit.names.table, id, kit.rowOf(call, id)),
    ),
  },
  {
    id: 'write-without-scope',
    title: 'a write tool declares no scope (3.4-14): any caller may call it',
    needs: `${DESIGN}; without a fixture stating scopes: needs the tool's true scopes (in progress)`,
    floor: 1,
    killers: ['identity'],
    applies: has('create'),
    variation: patchTools<MutationTool>(['create'], (tool) => ({ ...tool, scopes: [] })),
  },
  {
    id: 'write-scope-free',
    title: 'the write scope is listed in freeScopes: writes without the user granting it',
    ...UNAUTHORIZED_WRITE,
    variation: {
      definition: (d, kit) => ({
        ...d,
        authorize: { freeScopes: [kit.names.readScope, kit.names.writeScope] },
      }),
      fixture: (f, kit) => ({ ...f, userGrantedScopes: [kit.names.writeScope] }),
    },
  },
  {
    id: 'authorize-allows-all',
    title: 'a hand-written authorize() that allows every call (the grant check forgotten)',
    ...UNAUTHORIZED_WRITE,
    variation: allowsAll(),
  },
  {
    id: 'trusts-permission-gate',
    title:
      'a guarded provider (android:permission) whose authorize() lets in whoever reached it: "only holders of our permission get here" — but a URI grant opens it too (variants.ts `guard`)',
    needs:
      'authorized-effect (a grantee without the permission, every scenario caller here, writes without the user)',
    floor: 1,
    killers: ['identity', 'idempotency', 'confirmation'],
    applies: (spec) => spec.manifest?.guard === true && spec.auth !== 'free-all',
    manifestMistake: true,
    // The acquisition gate is trusted to have checked the caller; CETP's per-call checks (§7) are skipped.
    variation: allowsAll(),
  },
  {
    id: 'memory-state',
    title: 'rows kept in memory (a field of the process), lost on restart',
    needs: 'model / invariant one-row-per-add (the rows lost with the process)',
    floor: 1,
    killers: ['lifecycle', 'idempotency'],
    applies: has('create'),
    variation: memoryState(),
  },
  {
    id: 'constant-stored',
    title: 'create ignores an argument: stores a constant in its first field',
    needs: 'model (the stored row is not what the add sent)',
    floor: 1,
    killers: ['idempotency'],
    applies: has('create'),
    variation: patchCreate((call, tx, kit, id) => {
      const first = kit.spec.entity.fields[0]?.name ?? '';
      return tx.put(kit.names.table, id, { ...kit.rowOf(call, id), [first]: 'untitled' });
    }),
  },
  {
    id: 'no-owner-filter',
    title: "read tools return every caller's rows (no per-caller filtering)",
    needs: 'invariant reads-own-rows, when the fuzz run has a second caller read after the first added',
    floor: 1,
    killers: ['idempotency', 'confirmation', 'identity'],
    applies: has('list', 'get', 'export'),
    variation: patchTools<ReadTool>(['list', 'get', 'export'], (tool, kit) => ({
      ...tool,
      read: async (call) =>
        readAnswer(kit, tool, call, [...call.context.storage.snapshot(kit.names.table).values()] as Row[]),
    })),
  },
];

/** authorize() allows every call; the user grants the scopes a write needs (and the read scope on 'user' apps). */
function allowsAll(): Variation {
  return {
    definition: (d) => ({ ...d, authorize: () => ({ kind: 'allow' }) }),
    fixture: (f, kit) => ({
      ...f,
      userGrantedScopes:
        kit.spec.auth === 'user' ? [kit.names.readScope, kit.names.writeScope] : [kit.names.writeScope],
    }),
  };
}

function memoryState(): Variation {
  const rows = processMemory();
  return {
    tools: (tools, kit) =>
      tools.map((t): ProviderTool => {
        if (t.name === kit.names.tool('create'))
          return {
            ...(t as MutationTool),
            mutate: createMutate(kit, (call, _tx, kit, id) =>
              rows(call.context).set(id, kit.rowOf(call, id)),
            ),
          };
        if (!isRead(kindOf(kit, t.name))) return t;
        return {
          ...(t as ReadTool),
          read: async (call) =>
            readAnswer(
              kit,
              t,
              call,
              [...rows(call.context).values()].filter((r) => r.owner_uid === call.caller.uid),
            ),
        };
      }),
  };
}
