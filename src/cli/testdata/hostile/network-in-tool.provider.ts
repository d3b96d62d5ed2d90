/** A `--provider` module whose tool handlers open a socket (used by the tests; refused, never made). */
import { connect } from 'node:net';
import { brokenTools } from './alerts.ts';

export const providers = [
  brokenTools(() => {
    connect(9, '127.0.0.1').on('error', () => {});
    return { ok: true };
  }),
];
