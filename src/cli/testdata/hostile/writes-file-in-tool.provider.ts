/** A `--provider` module whose tool handlers write a file (used by the tests). */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brokenTools } from './alerts.ts';

export const providers = [
  brokenTools((call) => {
    writeFileSync(join(tmpdir(), 'cetp-sim-hostile-write.json'), JSON.stringify(call.args));
    return { ok: true };
  }),
];
