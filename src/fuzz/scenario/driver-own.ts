/**
 * Learning an async create's id before acting on it, as a careful client does: before a command
 * fills a `$OWN:field` (or `$OTHER:field`) placeholder while this actor has an accepted operation
 * whose result it has not seen, it polls that operation (get_operation, CETP-4.4-01) until it ends,
 * a few times at most, so `rememberOwn` keeps the result's fields. Before filling `$OTHER:field` it
 * waits a little for another actor to know such a field (the others run concurrently: their create
 * may not have ended yet). Bounded (OWN_POLLS per operation, each operation looked at once; the
 * wait of `otherWith`) and deterministic (virtual time only).
 */

import type { JsonValue } from '../../base/json.ts';
import { type DriverCore, parseObject } from './driver-session.ts';
import { pauseUnlessChanged } from './driver-settle.ts';
import { hasPlaceholder } from './placeholders.ts';

/** Polls of one operation before the command goes on without its result. */
const OWN_POLLS = 5;
/** The longest pause between two such polls (virtual ms), shortened by a change notification. */
const OWN_POLL_PAUSE_MS = 2_000;
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/** Before filling `entry` of `provider`'s pool: polls this actor's operations there whose end it has not seen. */
export async function learnOwnResults(
  d: DriverCore,
  provider: string,
  entry: JsonValue | undefined,
): Promise<void> {
  const json = JSON.stringify(entry ?? null);
  if (!hasPlaceholder(json)) return;
  const p = d.provider(provider);
  await learnOthers(d, json);
  for (const op of d.state.ops) {
    if (op.provider !== p.name || d.state.looked.includes(op.operationId)) continue;
    d.state.looked.push(op.operationId);
    for (let i = 0; i < OWN_POLLS; i++) {
      if (i > 0) await pauseUnlessChanged(d, OWN_POLL_PAUSE_MS);
      const reply = await d.v2(
        p,
        'get_operation',
        (b) => b.putString('operation_id', op.operationId),
        op.rid,
      );
      const state = parseObject(reply?.getString('data') ?? null).state;
      if (reply?.getString('status') !== 'success' || TERMINAL.has(String(state))) break;
    }
  }
}

/** `$OTHER:field` names of an args entry's JSON. */
const OTHER_FIELDS = /\$OTHER:([a-z_][a-z0-9_]*)/g;

/** Waits (a little, `otherWith`) until another actor knows each `$OTHER:` field `json` names. */
async function learnOthers(d: DriverCore, json: string): Promise<void> {
  for (const [, field] of json.matchAll(OTHER_FIELDS))
    if (field !== undefined) await d.otherWith((o) => o.own.has(field));
}
