/**
 * The `outage` fixture: a provider whose backend is down. Its one tool, `sync_inbox`, always fails
 * with UNAVAILABLE (retryable, CETP-5-23) — the deterministic stand-in for a transient outage, so a
 * vector can see how an SDK reports a tool's temporary failure. It allows every caller.
 */
import { ToolFailure } from '../providers/sdk/types.ts';
import { readTool } from '../providers/testing.ts';
import { vectorFixture } from './fixture-kit.ts';

export const OUTAGE_PACKAGE = 'com.example.outage';
export const OUTAGE_AUTHORITY = 'com.example.outage.clawseed.tools';

const syncInbox = readTool('sync_inbox', () => {
  throw new ToolFailure('UNAVAILABLE', 'The mail server is unreachable; try again shortly.');
});

export const OUTAGE = vectorFixture({
  name: 'outage',
  packageName: OUTAGE_PACKAGE,
  authority: OUTAGE_AUTHORITY,
  providerName: 'Outage',
  description: 'A provider whose backend is unreachable',
  tools: [syncInbox],
  authorization: 'allow-all',
  confirmationActivity: false,
});
