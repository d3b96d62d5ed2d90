/**
 * The misuse family of the raw protocol driver: one call sent twice at once, a call with one flaw in
 * its envelope or args, and the host a batch of structural malformed calls (malformed.ts) runs on.
 */

import { Bundle } from '../../sim/binder/bundle.ts';
import { remember, resend } from './driver-execute.ts';
import type { DriverCore } from './driver-session.ts';
import type { ProviderFixture } from './fixtures.ts';
import type { HostileHost } from './malformed.ts';
import type { Command, MalformedFlaw } from './model.ts';

/**
 * One call sent twice at once, same method and request_id: a poll or cancel of this actor's last
 * operation (nothing if it has none), or a listing of that operation's provider (else the first).
 */
export async function duplicateCall(
  d: DriverCore,
  method: Extract<Command, { kind: 'duplicate-call' }>['method'],
): Promise<void> {
  const op = d.state.lastOp;
  const onOperation = method === 'get_operation' || method === 'cancel_operation';
  if (onOperation && !op) return;
  const p = op ? d.provider(op.provider) : (d.providers[0] as ProviderFixture);
  const rid = onOperation && op ? op.rid : d.ctx.seededUuid();
  const fill = (b: Bundle) => {
    if (onOperation && op) b.putString('operation_id', op.operationId);
  };
  const copy = d.ctx.spawn(`duplicate-${method}`, async () => {
    await d.v2(p, method, fill, rid);
  });
  d.state.duplicates.push(copy);
  const reply = await d.v2(p, method, fill, rid);
  if (onOperation && op === d.state.lastOp) d.notePollAfter(reply);
}

/** A call with one deliberate flaw in its envelope or args. */
export async function malformed(d: DriverCore, p: ProviderFixture, flaw: MalformedFlaw): Promise<void> {
  const tool = Object.keys(p.tools)[0] ?? 'none';
  const b = new Bundle();
  b.putInt('protocol_version', 2);
  b.putString('session_token', await d.session(p));
  b.putString('request_id', d.ctx.seededUuid());
  b.putLong('deadline_at_ms', d.ctx.currentTimeMillis() + 30_000);
  b.putString('tool_name', tool);
  b.putString('args', d.argsAt(p.tools[tool] ?? [{}], 0));
  let method = 'execute_tool';
  switch (flaw) {
    case 'unknown-keys':
      b.putString('x_future_field', 'ignored');
      b.putInt('x_priority', 3);
      break;
    case 'no-request-id':
      b.remove('request_id');
      break;
    case 'request-id-not-uuid':
      b.putString('request_id', 'request-1');
      break;
    case 'protocol-version-long':
      b.putLong('protocol_version', 2);
      break;
    case 'deadline-int':
      b.putInt('deadline_at_ms', 1);
      break;
    case 'args-not-json':
      b.putString('args', '{"symbol": ');
      break;
    case 'args-schema-mismatch':
      b.putString('args', '{"unexpected": [1, 2, 3]}');
      break;
    case 'no-session':
      b.remove('session_token');
      break;
    case 'unknown-method':
      method = 'execute_tool_v3';
      break;
  }
  await d.call(p, method, b);
}

/** What a batch of structural malformed calls (malformed.ts) needs of this driver. */
export function hostileHost(d: DriverCore, p: ProviderFixture): HostileHost {
  return {
    ctx: d.ctx,
    session: () => d.session(p),
    args: (tool) => d.argsAt(p.tools[tool] ?? [{}], 0),
    operationId: () => (d.state.lastOp?.provider === p.name ? d.state.lastOp.operationId : null),
    operationRid: () => (d.state.lastOp?.provider === p.name ? d.state.lastOp.rid : null),
    call: async (method, extras) => {
      const reply = await d.call(p, method, extras ?? new Bundle());
      // A valid-after-all execution (unknown keys only) may start an operation: settle it too.
      const rid = extras?.typeOf('request_id') === 'String' ? extras.getString('request_id') : null;
      if (reply && method === 'execute_tool' && rid) remember(d, p, rid, reply);
      return reply;
    },
  };
}

/** Takes the session token of another actor, for this actor's next call. */
export async function stealSession(d: DriverCore): Promise<void> {
  const other = await d.otherWith((o) => o.sessions.size > 0);
  const token = other ? [...other.sessions.values()][0] : undefined;
  d.state.stolenSession = token ?? null;
}

/** Re-sends the other actor's last execution as this actor's own: same request_id, tool and args. */
export async function collide(d: DriverCore): Promise<void> {
  const prior = (await d.otherWith((o) => o.sent.length > 0))?.sent.at(-1);
  if (!prior) return;
  const entry = { ...prior, at: d.ctx.currentTimeMillis() };
  if (!d.state.rids.includes(prior.rid)) d.state.rids.push(prior.rid);
  d.state.sent.push(entry);
  await resend(d, entry);
}
