/**
 * A `--provider` module with a crash-only bug (used by the crash-point tests): the alerts app with a
 * mutation executor that commits the business change — and its effect — in one transaction and the
 * SDK's records (the de-duplication record among them) in a second one, as an app keeping its
 * business tables and the SDK's in two databases would. Without faults its synchronous writes
 * behave like the reference's; a kill between the two commits leaves an effect without its
 * de-duplication record, and the retry with the same request_id executes again (CETP-10-06,
 * CETP-4.4-17). (Its async operations also race their own cancellation: the operation's state is
 * committed apart from the effect.)
 */

import type { JsonObject, JsonValue } from '../../base/json.ts';
import { ALERTS, providerOptions } from '../../fuzz/scenario/fixtures.ts';
import type { Variant } from '../../fuzz/scenario/model.ts';
import { AlertToolProvider, alertsPackage } from '../../providers/apps/alerts.ts';
import { CONFIRM_ACTIVITY } from '../../providers/sdk/confirmations.ts';
import { CETP_PROVIDER } from '../../providers/sdk/manifest.ts';
import { CetpV2ContentProvider } from '../../providers/sdk/provider.ts';
import type { MutationExecutor } from '../../providers/sdk/types.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { BusinessEffect } from '../../sim/ground-truth.ts';
import type { StoreTransaction } from '../../sim/storage/storage.ts';
import type { World } from '../../sim/world.ts';

/** The SDK's own tables are named `cetp.*`; everything else is the app's business data. */
const isSdkTable = (table: string) => table.startsWith('cetp.');

type Writes = Map<string, Map<string, JsonValue | null>>;

/** Reads through to `tx`, keeps every write (and note) for the caller to commit as it likes. */
function buffered(
  tx: StoreTransaction,
  writes: Writes,
  notes: JsonObject[],
  effects: BusinessEffect[],
): StoreTransaction {
  const table = (name: string) => {
    let t = writes.get(name);
    if (!t) {
      t = new Map();
      writes.set(name, t);
    }
    return t;
  };
  return {
    async get(name, key) {
      const pending = writes.get(name)?.get(key);
      if (pending !== undefined) return pending === null ? undefined : pending;
      return tx.get(name, key);
    },
    async put(name, key, value) {
      table(name).set(key, value);
      await tx.get(name, key); // the same scheduling point a write is
    },
    async delete(name, key) {
      table(name).set(key, null);
      await tx.get(name, key);
    },
    async keys(name) {
      const out = new Set(await tx.keys(name));
      for (const [k, v] of writes.get(name) ?? []) {
        if (v === null) out.delete(k);
        else out.add(k);
      }
      return [...out];
    },
    annotate(note) {
      notes.push(note);
    },
    // The effects declared on this buffer are declared again on the transaction that commits them.
    takeEffect(effect) {
      effects.push(effect);
    },
  };
}

async function commit(tx: StoreTransaction, writes: Writes, which: (table: string) => boolean) {
  for (const [name, rows] of writes) {
    if (!which(name)) continue;
    for (const [key, value] of rows) {
      if (value === null) await tx.delete(name, key);
      else await tx.put(name, key, value);
    }
  }
}

/** The bug: business change first, the SDK's records (dedup, confirmations) in a later transaction. */
export function splitCommitExecutor(context: AppContext): MutationExecutor {
  return {
    async atomically(label, body) {
      const writes: Writes = new Map();
      const notes: JsonObject[] = [];
      const effects: BusinessEffect[] = [];
      const result = await context.storage.transaction(`${label} (read)`, (tx) =>
        body(buffered(tx, writes, notes, effects)),
      );
      await context.storage.transaction(`${label} (business)`, async (tx) => {
        await commit(tx, writes, (t) => !isSdkTable(t));
        for (const note of notes) tx.annotate(note);
        for (const effect of effects) context.declareEffect(effect, tx);
      });
      await context.storage.transaction(`${label} (records)`, (tx) => commit(tx, writes, isSdkTable));
      return result;
    },
  };
}

class SplitCommitAlerts extends AlertToolProvider {
  protected override mutationExecutor(): MutationExecutor {
    return splitCommitExecutor(this.context);
  }
}

export const providers = [
  {
    ...ALERTS,
    name: 'splitalerts',
    install: (world: World, variant: Variant) =>
      world.install(alertsPackage(), () => {
        const provider = new SplitCommitAlerts(providerOptions(variant));
        return {
          providers: { [CETP_PROVIDER]: provider },
          activities: { [CONFIRM_ACTIVITY]: CetpV2ContentProvider.confirmationActivity(() => provider) },
        };
      }),
  },
];
