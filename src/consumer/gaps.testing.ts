/**
 * Scripted-provider helpers shared by the consumer's tests against a scripted provider (the mutation-gap
 * tests, execution, unknown-outcome, operations): four tools, a world with a scripted provider, the
 * execute_tool calls it saw, and the replies they use.
 */
import { Intent } from '../sim/ui/intent.ts';
import { FLAG_IMMUTABLE } from '../sim/ui/pending-intent.ts';
import type { World } from '../sim/world.ts';
import type { ConsumerOptionsInit } from './options.ts';
import {
  consumerCalls,
  consumerWorld,
  errorReply,
  installScripted,
  SCRIPTED_ACTIVITY,
  SCRIPTED_PACKAGE,
  type ScriptedCall,
  success,
  toolDescriptor,
} from './testing.ts';

export const WRITE = toolDescriptor(
  'write',
  { output_schema: { type: 'object' } },
  { effect: 'create', risk: 'low', idempotent: false },
);
export const CONFIRMED = toolDescriptor(
  'confirmed',
  {},
  { effect: 'update', risk: 'moderate', confirmation: 'always' },
);
export const ASYNC = toolDescriptor('job', {}, { effect: 'update', risk: 'low', execution: 'sync_or_async' });
export const READ = toolDescriptor('lookup');

export function executes(world: World) {
  return consumerCalls(world).filter((c) => c.method === 'execute_tool');
}

export function scripted(
  answer: (c: ScriptedCall) => ReturnType<typeof success> | null | undefined,
  consumer: ConsumerOptionsInit = {},
  tools = [WRITE, CONFIRMED, ASYNC, READ],
) {
  const world = consumerWorld({ providers: [], consumer });
  installScripted(world, { tools, answer });
  return world;
}

export const ok = (c: ScriptedCall) => success(c.requestId, { kind: 'inline', value: { n: c.n } });

/** USER_ACTION_REQUIRED with the scripted provider's own explicit, immutable resolution. */
export function needsConfirmation(c: ScriptedCall, activity = SCRIPTED_ACTIVITY) {
  const pi = c.context.getActivityPendingIntent(
    c.n,
    Intent.explicit(SCRIPTED_PACKAGE, activity, { data: `confirm://${c.n}` }),
    FLAG_IMMUTABLE,
  );
  const reply = errorReply(c.requestId, 'USER_ACTION_REQUIRED', {
    retryable: false,
    resumeToken: `token-${c.n}`,
  });
  reply.putPendingIntent('resolution', pi);
  return reply;
}
