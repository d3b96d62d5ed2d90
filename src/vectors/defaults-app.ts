/**
 * The `defaults` fixture: a provider that keeps every SDK default — no authorization policy (the
 * SDK denies everything, CETP-10-01) and no mutation executor (its write tool is refused,
 * CETP-10-05). It exists so vectors can hold an SDK's defaults to the spec; a device suite builds it
 * with its own SDK, overriding nothing but the descriptor and the two tools.
 */
import { readTool, writeTool } from '../providers/testing.ts';
import { vectorFixture } from './fixture-kit.ts';

export const DEFAULTS_PACKAGE = 'com.example.defaults';
export const DEFAULTS_AUTHORITY = 'com.example.defaults.clawseed.tools';

export const DEFAULTS = vectorFixture({
  name: 'defaults',
  packageName: DEFAULTS_PACKAGE,
  authority: DEFAULTS_AUTHORITY,
  providerName: 'SDK defaults',
  description: 'A provider that overrides no SDK default',
  tools: [readTool('echo', (call) => ({ echo: call.args })), writeTool('add_note')],
  authorization: 'sdk-default',
  confirmationActivity: true,
});
