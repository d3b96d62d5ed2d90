/**
 * Consumer-level mistakes, each a small source patch of the scratch agent (one `find` → `replace`
 * in one file): the bugs a careful person still makes when writing a consumer from scratch. Each
 * names the rules it breaks and the oracle expected to catch it — or `null` with why none can.
 * `variant.ts` builds a patched copy; `measure.ts` fuzzes every one and prints the table in
 * docs/consumer-mistakes.md; `mistakes.test.ts` holds the catches.
 */
export interface Mistake {
  readonly id: string;
  /** What the patched consumer does wrong, in one line. */
  readonly what: string;
  readonly rules: readonly string[];
  readonly file: string;
  readonly find: string;
  readonly replace: string;
  /** The oracle that should catch it, or null when no oracle can judge it (and why, in `why`). */
  readonly oracle: string | null;
  readonly why?: string;
}

export const MISTAKES: readonly Mistake[] = [
  {
    id: 'catalogue-across-sessions',
    what: 'a cached catalogue is used in a new session without reading list_tools in it',
    rules: ['CETP-3.3-05'],
    file: 'session.ts',
    find: 'const catalogue = await this.listTools(partial);',
    replace: 'const catalogue = this.catalogues.values().next().value ?? (await this.listTools(partial));',
    oracle: 'consumer-rereads-catalogue',
  },
  {
    id: 'catalogue-ignores-revision',
    what: 'list_tools is read, but the first cached catalogue is used whatever revision it names',
    rules: ['CETP-3.3-04', 'CETP-3.3-05'],
    file: 'session.ts',
    find: "const cached = typeof revision === 'string' ? this.catalogues.get(revision) : undefined;",
    replace: 'const cached = this.catalogues.values().next().value;',
    oracle: null,
    why: 'no consumer scenario changes a provider’s tool list while the consumer runs: every revision a consumer reads is the same, so a stale catalogue lists the same tools',
  },
  {
    id: 'negotiate-v2-only',
    what: 'negotiate offers consumer_versions [2]: the consumer drops the v1 it must keep supporting',
    rules: ['CETP-0-02', 'CETP-2.2-02'],
    file: 'session.ts',
    find: 'export const OFFERED_VERSIONS = [2, 1];',
    replace: 'export const OFFERED_VERSIONS = [2];',
    oracle: 'consumer-offers-v1',
  },
  {
    id: 'prefers-v1',
    what: 'a dual-stack provider (versions 1,2) is spoken to in v1',
    rules: ['CETP-8-07', 'CETP-8-01'],
    file: 'discovery.ts',
    find: 'const version = versions.includes(2) ? 2 : versions.includes(1) ? 1 : null;',
    replace: 'const version = versions.includes(1) ? 1 : versions.includes(2) ? 2 : null;',
    oracle: 'consumer-no-downgrade',
  },
  {
    id: 'downgrades-after-failed-negotiation',
    what: 'a provider whose negotiation failed is used through v1',
    rules: ['CETP-8-03', 'CETP-8-08', 'CETP-8-09'],
    file: 'agent.ts',
    find: "if (!connected.ok) return answer(source, 'provider_unavailable');",
    replace:
      'if (!connected.ok) return new LegacyConnection(this.context, link.connection.channel, link.provider.packageName).execute(toolName, args);',
    oracle: 'consumer-no-downgrade',
  },
  {
    id: 'new-request-id-after-restart',
    what: 'a journaled write is resumed after a restart under a fresh request_id',
    rules: ['CETP-4.1-04', 'CETP-4.1-16', 'CETP-6-08'],
    file: 'agent.ts',
    find: 'requestId: entry.requestId,',
    replace: 'requestId: this.context.seededUuid(),',
    oracle: 'consumer-request-id-on-wire',
  },
  {
    id: 'new-request-id-on-retry',
    what: 'a re-send after a lost reply or a retryable error goes out under a fresh request_id',
    rules: ['CETP-4.1-04', 'CETP-4.1-15', 'CETP-4.1-16', 'CETP-6-08'],
    file: 'execution.ts',
    find: "        'execute_tool',\n        this.plan.requestId,",
    replace:
      "        'execute_tool',\n        reason === 'first' ? this.plan.requestId : this.context.seededUuid(),",
    oracle: 'consumer-request-id-on-wire',
  },
  {
    id: 'retries-non-retryable',
    what: 'any error the table does not forbid outright is re-sent, whatever `retryable` says',
    rules: ['CETP-5-26'],
    file: 'policy.ts',
    find: "if (protocol.retryPolicyOf(error.code) === 'no' || !error.retryable) return null;",
    replace: "if (protocol.retryPolicyOf(error.code) === 'no') return null;",
    oracle: 'consumer-retry-discipline',
  },
  {
    id: 'ignores-retry-after',
    what: 'a retry waits its own back-off, not the provider’s retry_after_ms',
    rules: ['CETP-5-27'],
    file: 'policy.ts',
    find: 'return Math.max(after, backoffMs(retriesSoFar));',
    replace: 'return backoffMs(retriesSoFar);',
    oracle: 'consumer-retry-discipline',
  },
  {
    id: 'no-query-after-deadline',
    what: 'DEADLINE_EXCEEDED ends the execution without a same-id query',
    rules: ['CETP-5-19'],
    file: 'execution.ts',
    find: "if (e.code === 'DEADLINE_EXCEEDED' && !this.queried) {",
    replace: "if (e.code === 'DEADLINE_EXCEEDED' && !this.queried && this.queried) {",
    oracle: 'consumer-queries-after-deadline',
  },
  {
    id: 'provider-text-as-explanation',
    what: 'the provider’s error message becomes the explanation the agent reads',
    rules: ['CETP-4.2-05', 'CETP-7.3-03', 'CETP-1-01'],
    file: 'execution.ts',
    find: "return this.end('rejected', { code: e.code, providerMessage: untrustedText(e.message, 300) });",
    replace: "return { ...this.end('rejected', { code: e.code }), explanation: e.message };",
    oracle: 'agent-gets-data',
  },
  {
    id: 'tool-description-as-plain-text',
    what: 'tool descriptions reach the agent’s listing as plain strings',
    rules: ['CETP-4.2-04', 'CETP-4.2-05', 'CETP-7.3-03'],
    file: 'agent.ts',
    find: 'description: t.description,',
    replace: 'description: t.description.text as never,',
    oracle: 'agent-gets-data',
  },
  {
    id: 'reply-fd-not-closed',
    what: 'a reply’s file descriptors are not closed once it is handled',
    rules: ['CETP-4.5-09'],
    file: 'execution.ts',
    find: '      } finally {\n        closeAll(reply.bundle);\n      }',
    replace: '      } finally {\n      }',
    oracle: 'no-fd-leaks',
  },
  {
    id: 'skips-sha256',
    what: 'a file result is accepted without checking its SHA-256',
    rules: ['CETP-4.5-06'],
    file: 'files.ts',
    find: "if (protocol.sha256Hex(bytes) !== declared.sha256) return { ok: false, why: 'sha256' };",
    replace: '',
    oracle: 'consumer-verifies-file',
  },
  {
    id: 'launches-unverified-resolution',
    what: 'a resolution PendingIntent is launched without checking it is the provider’s own',
    rules: ['CETP-4.3-02', 'CETP-7.2-04', 'CETP-7.2-05'],
    file: 'execution.ts',
    find: "if (!isProvidersOwn(pi, this.plan.provider)) return { done: this.end('refused_resolution') };",
    replace: '',
    oracle: 'consumer-verifies-resolution',
  },
  {
    id: 'loops-on-auth-required',
    what: 'AUTH_REQUIRED / USER_ACTION_REQUIRED is answered by re-sending the request, no screen shown',
    rules: ['CETP-5-28', 'CETP-5-26'],
    file: 'execution.ts',
    find: "if (!(await this.screen.launch(pi))) return { done: this.end('refused_resolution') };\n      this.resumeToken = e.resumeToken;\n      return { again: 'resume' };",
    replace: "return { again: 'retry' };",
    oracle: 'consumer-retry-discipline',
  },
  {
    id: 'resumes-with-stale-token',
    what: 'a second resolution is resumed with the first, already used resume_token',
    rules: ['CETP-4.3-07', 'CETP-4.3-13'],
    file: 'execution.ts',
    find: 'this.resumeToken = e.resumeToken;',
    replace: 'this.resumeToken ??= e.resumeToken;',
    oracle: 'consumer-resumes-latest-token',
  },
  {
    id: 'resumes-without-launching',
    what: 'after AUTH_REQUIRED / USER_ACTION_REQUIRED the call is resumed without showing the resolution',
    rules: ['CETP-5-28', 'CETP-4.3-12', 'CETP-4.3-07'],
    file: 'execution.ts',
    find: "if (!(await this.screen.launch(pi))) return { done: this.end('refused_resolution') };",
    replace: '',
    oracle: 'consumer-no-loop-without-user',
  },
  {
    id: 'resumes-before-activity-result',
    what: 'the resume_token goes back without waiting for the resolution’s Activity result',
    rules: ['CETP-4.3-12'],
    file: 'confirmation.ts',
    find: 'await this.context.startIntentSenderForResult(pi, null, 0, LEND_FOREGROUND);',
    replace: 'void this.context.startIntentSenderForResult(pi, null, 0, LEND_FOREGROUND).catch(() => {});',
    oracle: 'consumer-waits-for-result',
  },
  {
    id: 'cancelled-on-request',
    what: 'a taken cancellation request is told to the agent as "cancelled"',
    rules: ['CETP-4.4-11', 'CETP-4.4-19'],
    file: 'operations.ts',
    find: "      if (reply.kind === 'reply') closeAll(reply.bundle);\n    }",
    replace:
      "      if (reply.kind === 'reply') closeAll(reply.bundle);\n      if (reply.kind === 'reply' && reply.bundle.getString('status') === 'success') return run.end('cancelled');\n    }",
    oracle: 'agent-cancelled-only-when-cancelled',
  },
  {
    id: 'unavailable-for-unknown-outcome',
    what: 'a write whose reply was lost is told to the agent as "provider unavailable", not unknown',
    rules: ['CETP-4.1-15', 'CETP-6-05', 'CETP-6-08'],
    file: 'execution.ts',
    find: "return this.end(this.isWrite && this.unanswered ? 'outcome_unknown' : 'provider_unavailable');",
    replace: "return this.end('provider_unavailable');",
    oracle: 'agent-unknown-not-unavailable',
  },
  {
    id: 'lost-reply-as-unavailable',
    what: 'a Binder failure (death, null, timeout) ends the execution as "provider unavailable" at once',
    rules: ['CETP-4.1-15', 'CETP-6-05', 'CETP-6-08'],
    file: 'execution.ts',
    find: "if (reply.kind === 'lost') this.unanswered = true; // a refused call never left",
    replace: "if (reply.kind === 'lost') return this.end('provider_unavailable');",
    oracle: 'agent-unknown-not-unavailable',
  },
  {
    id: 'no-resume-on-start',
    what: 'a restarted process never resumes its journal',
    rules: ['CETP-6-08', 'CETP-4.1-15'],
    file: 'app.ts',
    find: 'await agent.resumeJournal();',
    replace: '',
    oracle: 'consumer-resumes-after-restart',
  },
];
