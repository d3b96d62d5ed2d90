/**
 * The execute family of the raw protocol driver: execute_tool sends (raced by duplicate copies),
 * resolutions honest or misused, re-sends and resumes, and what an actor remembers of each answer —
 * the operation it started, the request ids done, the string fields of its own results.
 */

import type { Bundle } from '../../sim/binder/bundle.ts';
import type { Resent } from './actor-state.ts';
import { learnOwnResults } from './driver-own.ts';
import { type DriverCore, rememberOwn } from './driver-session.ts';
import { observe } from './driver-settle.ts';
import type { ProviderFixture } from './fixtures.ts';
import { type Command, RESUME_TOKEN_TTL_MS } from './model.ts';

type ExecuteCommand = Extract<Command, { kind: 'execute' }>;

/** One execute_tool send of an execute command: the request id, args and resume token it carries. */
interface Sending {
  readonly p: ProviderFixture;
  readonly c: ExecuteCommand;
  readonly requestId: string;
  readonly argsJson: string;
  readonly token: string | null;
}

export async function execute(d: DriverCore, c: ExecuteCommand): Promise<void> {
  const p = d.provider(c.provider);
  const pool = p.tools[c.tool] ?? [{}];
  await learnOwnResults(d, p.name, pool[c.args % pool.length]);
  const args = d.argsAt(pool, c.args);
  const rid = d.rid(c.rid);
  d.state.sent.push({ provider: p.name, tool: c.tool, rid, args, at: d.ctx.currentTimeMillis() });
  let reply = await raced(d, { p, c, requestId: rid, argsJson: args, token: null });
  for (let round = 0; round < 3 && reply; round++) {
    remember(d, p, rid, reply);
    const code = reply.getString('error_code');
    if ((code !== 'AUTH_REQUIRED' && code !== 'USER_ACTION_REQUIRED') || c.resolve === 'none') return;
    const token = reply.getString('resume_token') ?? '';
    // Scope grants are resolved honestly; the chosen misbehaviour applies to confirmations.
    // (a late resume crosses the token's lifetime whichever resolution issued it)
    const late = c.resolve === 'late-before' || c.resolve === 'late-after';
    const mode = code === 'AUTH_REQUIRED' && !late ? 'honest' : c.resolve;
    // Any resolution's token is there for the other actors to misuse (resume-foreign).
    d.state.lastToken = { provider: p.name, token, rid, tool: c.tool, args };
    const issuedAt = d.ctx.currentTimeMillis();
    if (mode !== 'skip-ui') await d.launch(reply.getPendingIntent('resolution'));
    if (code === 'AUTH_REQUIRED')
      d.state.grants.push({ provider: p.name, tool: c.tool, args, at: d.ctx.currentTimeMillis() });
    if (mode === 'foreign') return; // the other actor may resume it (see resumeForeign)
    if (mode === 'late-before' || mode === 'late-after')
      await d.sleepAround(
        issuedAt + RESUME_TOKEN_TTL_MS,
        RESUME_TOKEN_TTL_MS,
        mode === 'late-before' ? 'before' : 'after',
      );
    const resumeRid = mode === 'other-rid' ? d.rid({ kind: 'fresh' }) : rid;
    const resumeArgs = mode === 'altered-args' ? d.argsAt(pool, c.args + 1) : args;
    reply = await raced(d, { p, c, requestId: resumeRid, argsJson: resumeArgs, token });
    if (mode !== 'honest' && mode !== 'late-before' && mode !== 'late-after') {
      if (reply) remember(d, p, resumeRid, reply);
      return;
    }
  }
  if (reply) remember(d, p, rid, reply);
}

export function send(d: DriverCore, s: Sending): Promise<Bundle | null> {
  const { c } = s;
  return d.v2(
    s.p,
    'execute_tool',
    (b) => {
      b.putString('tool_name', c.tool);
      b.putString('args', s.argsJson);
      if (s.token !== null) b.putString('resume_token', s.token);
      if (c.confirmedFlag) b.putBoolean('confirmed', true);
    },
    s.requestId,
    c.expiredDeadline,
  );
}

/** Sends once, raced by `duplicates` identical copies (retries after a timeout, still in flight). */
export function raced(d: DriverCore, s: Sending): Promise<Bundle | null> {
  for (let i = 0; i < s.c.duplicates; i++) {
    const task = d.ctx.spawn(`duplicate-${i}`, async () => {
      const copy = await send(d, s);
      if (copy) remember(d, s.p, s.requestId, copy);
    });
    d.state.duplicates.push(task);
  }
  return send(d, s);
}

/**
 * Re-sends an execution (same request_id, tool and args; with `token`, a resume) and remembers its
 * answer; `deadlineMs`: the budget it allows.
 */
export async function resend(
  d: DriverCore,
  prior: Resent,
  deadlineMs: number | boolean = false,
  token: string | null = null,
): Promise<Bundle | null> {
  const p = d.provider(prior.provider);
  const reply = await d.v2(
    p,
    'execute_tool',
    (b) => {
      b.putString('tool_name', prior.tool);
      b.putString('args', prior.args);
      if (token !== null) b.putString('resume_token', token);
    },
    prior.rid,
    deadlineMs,
  );
  if (reply) remember(d, p, prior.rid, reply);
  return reply;
}

/** A fresh execution of `tool` with `args` (sent, remembered). */
export async function fresh(
  d: DriverCore,
  provider: string,
  tool: string,
  args: string,
  deadlineMs: number | boolean = false,
) {
  const p = d.provider(provider);
  const rid = d.rid({ kind: 'fresh' });
  const entry = { provider: p.name, tool, rid, args, at: d.ctx.currentTimeMillis() };
  d.state.sent.push(entry);
  return resend(d, entry, deadlineMs);
}

/** The first tool of the first provider with its first args: something to send when nothing was. */
export function anyExecution(d: DriverCore): { provider: string; tool: string; args: string } {
  const p = d.providers[0] as ProviderFixture;
  const tool = Object.keys(p.tools)[0] ?? 'none';
  return { provider: p.name, tool, args: d.argsAt(p.tools[tool] ?? [{}], 0) };
}

/**
 * What an app does with a journaled request the provider asks to authorize or confirm again (after
 * a reinstall wiped its grants and records): launches the resolution, waits for the user, resumes
 * with the same request_id, tool and args (at most three rounds).
 */
export async function resumeAfter(d: DriverCore, prior: Resent, first: Bundle): Promise<void> {
  let reply: Bundle | null = first;
  for (let round = 0; round < 3 && reply; round++) {
    const code = reply.getString('error_code');
    if (code !== 'AUTH_REQUIRED' && code !== 'USER_ACTION_REQUIRED') return;
    const token = reply.getString('resume_token') ?? '';
    await d.launch(reply.getPendingIntent('resolution'));
    reply = await resend(d, prior, false, token);
  }
}

/** Resumes this actor's own held resolution: its token, request_id, tool and args (as held). */
export async function resumeHeld(d: DriverCore): Promise<void> {
  const t = d.state.lastToken;
  if (!t) return;
  await resend(d, t, false, t.token);
}

/** Resumes the other actor's last resolution with its token (a foreign caller). */
export async function resumeForeign(d: DriverCore): Promise<void> {
  // The other actor may not have reached its confirmation yet: wait for it a little (virtual time).
  const t = (await d.otherWith((o) => o.lastToken !== null))?.lastToken;
  if (!t) return;
  const p = d.provider(t.provider);
  await d.v2(
    p,
    'execute_tool',
    (b) => {
      b.putString('tool_name', t.tool);
      b.putString('args', t.args);
      b.putString('resume_token', t.token);
    },
    t.rid,
  );
}

export function remember(d: DriverCore, p: ProviderFixture, rid: string, reply: Bundle): void {
  const status = reply.getString('status');
  if ((status === 'success' || status === 'accepted') && !d.state.completed.includes(rid))
    d.state.completed.push(rid);
  rememberOwn(d.state, reply);
  if (reply.getString('status') !== 'accepted') return;
  const operationId = (JSON.parse(reply.getString('data') ?? '{}') as { operation_id?: string }).operation_id;
  if (!operationId) return;
  const op = { provider: p.name, operationId, rid };
  d.state.lastOp = op;
  d.notePollAfter(reply);
  if (!d.state.ops.some((o) => o.operationId === operationId)) d.state.ops.push(op);
  observe(d, p);
}

/** A retry of an execution sent before (a resolving one re-sends one that was done, and resolves). */
export async function retry(d: DriverCore, command: Extract<Command, { kind: 'retry' }>): Promise<void> {
  // A resolving retry re-sends a request that was done, if any (its effect must not repeat in
  // this incarnation of the provider; after a reinstall it may).
  const done = command.resolve ? d.state.sent.filter((e) => d.state.completed.includes(e.rid)) : [];
  const pool = done.length > 0 ? done : d.state.sent;
  const prior = pool[command.index % Math.max(1, pool.length)];
  if (!prior) return;
  if (command.afterMs > 0) await d.ctx.sleep(command.afterMs);
  // A retry may be the send that starts the operation (the first one's answer was lost): resend
  // remembers it, so it is settled too.
  const reply = await resend(d, prior);
  if (command.resolve && reply) await resumeAfter(d, prior, reply);
}

/** A poll or cancel of this actor's last operation, or the other actor's. */
export async function pollOrCancel(
  d: DriverCore,
  command: Extract<Command, { kind: 'poll' | 'cancel' }>,
): Promise<void> {
  if (command.kind === 'cancel' && command.afterMs > 0) await d.ctx.sleep(command.afterMs);
  const op = command.other ? (await d.otherWith((o) => o.lastOp !== null))?.lastOp : d.state.lastOp;
  if (!op) return;
  const wrongRid = command.kind === 'poll' && command.wrongRid === true;
  const reply = await d.v2(
    d.provider(op.provider),
    command.kind === 'poll' ? 'get_operation' : 'cancel_operation',
    (b) => b.putString('operation_id', op.operationId),
    wrongRid ? d.ctx.seededUuid() : op.rid,
  );
  if (op === d.state.lastOp) d.notePollAfter(reply);
}
