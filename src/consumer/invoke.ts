/**
 * Starting and resuming logical executions on a v2 provider: everything before and after the
 * engine (execution.ts) — local checks, the local approval, the journal and the audit trail.
 *
 * Before anything is sent: the tool must be in the checked catalogue of the current session; the
 * args string must be JSON within the negotiated max_request_bytes (4.1-08) and match the tool's
 * input_schema (so a call the provider would refuse for shape is not sent); a tool with effect ≠
 * read of enough risk goes through the local approval (which is never sent, 1-02, 4.3-10). Then one
 * request_id is drawn for the logical execution and, for effect ≠ read, journaled durably before
 * the first attempt (4.1-04, 6-08).
 */
import { utf8Length } from '../protocol/index.ts';
import { recordAudit } from './audit.ts';
import type { CetpClient } from './client.ts';
import { askLocalApproval } from './confirmation.ts';
import { ExecutionRun } from './execution.ts';
import type { JournalEntry } from './journal.ts';
import { CancelSignal } from './operations.ts';
import { needsLocalApproval } from './options.ts';
import { failure, isOutcomeOpen, type OutcomeSource, type ToolOutcome } from './outcomes.ts';
import type { UntrustedProgress } from './untrusted.ts';

export interface ExecuteOptions {
  /** Raise it (from any task) to ask for cancellation of an async operation (4.4-18). */
  readonly cancel?: CancelSignal;
  /** Progress of an async operation: display data, never a success signal (4.4-09). */
  readonly onProgress?: (progress: UntrustedProgress) => void;
}

export async function executeOnClient(
  client: CetpClient,
  toolName: string,
  args: string,
  options: ExecuteOptions = {},
): Promise<ToolOutcome> {
  const { context, config } = client;
  const executionId = context.seededUuid();
  const providerId = client.providerId ?? client.provider.packageName;
  const source: OutcomeSource = { providerId, tool: toolName, executionId, requestId: null };
  const connected = await client.connectPatiently();
  if (!connected.ok) {
    return failure(source, {
      kind: 'provider_unavailable',
      temporary: connected.temporary,
      ...(connected.retryAfterMs !== undefined ? { retryAfterMs: connected.retryAfterMs } : {}),
    });
  }
  const tool = client.tool(toolName);
  if (!tool) return failure(source, { kind: 'tool_not_found' });
  const issues = checkArgs(
    args,
    connected.session.limits.maxRequestBytes,
    tool.validateInput,
    config.gates.on('CETP-4.1-08'),
  );
  if (issues.length > 0) return failure(source, { kind: 'invalid_args', issues });
  const a = tool.annotations;
  if (needsLocalApproval(config, a.effect, a.risk)) {
    const approved = await askLocalApproval(context, config, {
      providerId: tool.providerId,
      providerLabel: client.details?.name.text || tool.providerId,
      tool: tool.name,
      title: tool.title.text || tool.name,
      effect: a.effect,
      risk: a.risk,
      destructive: a.destructive,
    });
    if (!approved) return failure(source, { kind: 'declined_locally' });
  }
  const requestId = context.seededUuid();
  const journaled = a.effect !== 'read' && config.gates.on('CETP-6-08');
  if (journaled) {
    client.journal.hold(executionId);
    await client.journal.begin({
      executionId,
      packageName: client.provider.packageName,
      providerId: tool.providerId,
      tool: tool.name,
      requestId,
      args,
      effect: a.effect,
      createdAtMs: context.currentTimeMillis(),
    });
  }
  recordAudit(context, {
    event: 'execution.start',
    execution_id: executionId,
    provider_id: tool.providerId,
    tool: tool.name,
    request_id: requestId,
    effect: a.effect,
    version: 2,
  });
  const run = new ExecutionRun(client, {
    executionId,
    requestId,
    tool,
    args,
    journaled,
    firstReason: 'first',
    cancel: options.cancel ?? null,
    onProgress: options.onProgress ?? null,
  });
  return finish(client, run, await run.run());
}

/** Picks a journaled execution up again after a consumer restart (same id, same args bytes). */
export async function resumeOnClient(
  client: CetpClient,
  entry: JournalEntry,
  options: ExecuteOptions = {},
): Promise<ToolOutcome> {
  const { context } = client;
  // Planted bug: the request_id was never journaled, so the "same" execution gets a new one.
  const requestId = entry.requestId ?? context.seededUuid();
  const source: OutcomeSource = {
    providerId: entry.providerId,
    tool: entry.tool,
    executionId: entry.executionId,
    requestId,
  };
  const connected = await client.connectPatiently();
  if (!connected.ok) {
    return failure(source, { kind: 'outcome_unknown', reason: connected.reason });
  }
  const tool = client.tool(entry.tool);
  // A journaled write may have landed before the restart: a tool gone since leaves its outcome unknown.
  if (!tool) return failure(source, { kind: 'outcome_unknown', reason: 'tool_gone_after_send' });
  recordAudit(context, {
    event: 'execution.resumed',
    execution_id: entry.executionId,
    provider_id: entry.providerId,
    tool: entry.tool,
    request_id: requestId,
  });
  client.journal.hold(entry.executionId);
  const cancel = options.cancel ?? (entry.cancelRequested ? new CancelSignal() : null);
  if (entry.cancelRequested) cancel?.cancel();
  const run = new ExecutionRun(client, {
    executionId: entry.executionId,
    requestId,
    tool,
    args: entry.args,
    journaled: true,
    firstReason: 'retry',
    cancel,
    onProgress: options.onProgress ?? null,
  });
  // A restarted consumer may be past a confirmation whose Activity result it never saw: the re-send
  // without token gets the same resolution back, which is launched again (the provider's screen
  // closes at once if the user had already decided) — never a resume with an undecided token.
  return finish(client, run, await run.run());
}

async function finish(client: CetpClient, run: ExecutionRun, outcome: ToolOutcome): Promise<ToolOutcome> {
  recordAudit(client.context, {
    event: 'execution.end',
    execution_id: run.plan.executionId,
    request_id: run.requestId,
    outcome: outcome.kind,
    error_code: outcome.kind === 'rejected' ? outcome.code : null,
  });
  if (run.plan.journaled && !isOutcomeOpen(outcome)) {
    await client.journal.update(run.plan.executionId, { state: 'done', outcome: outcome.kind });
  }
  client.journal.release(run.plan.executionId);
  return outcome;
}

/** Local checks on the args string: JSON, size (4.1-08) and the tool's input_schema. */
export function checkArgs(
  args: string,
  maxRequestBytes: number,
  validateInput: (value: unknown) => readonly { path?: string; code: string }[],
  enforceSize: boolean,
): string[] {
  if (enforceSize && utf8Length(args) > maxRequestBytes) return ['args_too_large'];
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return ['args_not_json'];
  }
  return validateInput(value).map((i) => `${i.code}${i.path ? ` at ${i.path}` : ''}`);
}
