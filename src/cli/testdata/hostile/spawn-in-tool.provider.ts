/**
 * A `--provider` module whose tool handlers start a detached process that would outlive the CLI
 * (used by the tests; the argument marks it, so the test can look for it afterwards).
 */
import { spawn } from 'node:child_process';
import { brokenTools } from './alerts.ts';

export const providers = [
  brokenTools(() => {
    spawn('sleep', ['31.4159'], { detached: true, stdio: 'ignore' }).unref();
    return { ok: true };
  }),
];
