/**
 * The newcomer's to-do app (issue 30), as a regression for the CLI's `fuzz --provider` path:
 * - the correct app passes `lifecycle` (a re-sign with uninstall in the very step its first effect
 *   committed used to count that effect in the new incarnation: single-effect's false alarm);
 * - the app that stores add_todo's row in `prepare` fails with a storage-level violation naming the
 *   request and both writes.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { replay } from '../../src/harness/replay.ts';
import { todoFixture } from './todo.provider.ts';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

describe('the correct to-do app', () => {
  it('passes lifecycle on the run where an effect and a re-sign wipe share a step (seed 3, run 70)', async () => {
    const report = await replay(here('./lifecycle-same-step-wipe.replay.json'), { providers: todoFixture });
    // The recorded run: add_todo committed (#73) and the package was re-signed under another key in
    // the same step 127 (#76, #77); the re-send after the wipe committed again (#162): a new request.
    const commits = report.events.filter(
      (e) => e.kind === 'store.commit' && e.data.tx === 'execute add_todo',
    );
    const wipe = report.events.find((e) => e.kind === 'pm.uninstall');
    expect(wipe).toBeDefined();
    expect(commits.some((c) => c.step === wipe?.step && c.seq < (wipe?.seq ?? 0))).toBe(true);
    expect(report.violations).toEqual([]);
    expect(report.passed).toBe(true);
  });
});
