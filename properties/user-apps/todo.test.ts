/**
 * The newcomer's to-do app (issue 30), as a regression for the CLI's `fuzz --provider` path:
 * - the correct app passes `lifecycle` (a re-sign with uninstall in the very step its first effect
 *   committed used to count that effect in the new incarnation: single-effect's false alarm);
 * - the app that stores add_todo's row in `prepare` fails with a storage-level violation naming the
 *   request and both writes.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fuzzProvider } from '../../src/harness/fuzz.ts';
import { replay } from '../../src/harness/replay.ts';
import { todoFixture } from './todo.provider.ts';
import { TODO_STORAGE_IN_MUTATE, TODO_TOOLS } from './todo.ts';
import { todoPrepareWritesFixture } from './todo-prepare-writes.provider.ts';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

describe('the correct to-do app', () => {
  it("passes lifecycle at seed 1 (the newcomer's command: fuzz --provider todo --property lifecycle --seed 1)", async () => {
    const report = await fuzzProvider(todoFixture, { property: 'lifecycle', seed: 1, replayDir: null });
    expect(report.properties.map((p) => [p.id, p.status, p.violations])).toEqual([
      ['lifecycle', 'passed', []],
    ]);
  });

  it('passes idempotency: its business writes are made once per request, inside the SDK transaction', async () => {
    const report = await fuzzProvider(todoFixture, {
      property: 'idempotency',
      seed: 0,
      runs: 200,
      replayDir: null,
    });
    expect(report.properties.map((p) => [p.id, p.status, p.violations])).toEqual([
      ['idempotency', 'passed', []],
    ]);
  });

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

describe("the to-do app that stores add_todo's row in prepare (outside the SDK transaction)", () => {
  it('fails idempotency with a storage-level violation naming the request and both writes', async () => {
    const report = await fuzzProvider(todoPrepareWritesFixture, {
      property: 'idempotency',
      seed: 0,
      runs: 200,
      replayDir: null,
    });
    const property = report.properties[0];
    expect(property?.status).toBe('failed');
    const single = property?.violations.find((v) => v.checker === 'storage-single-effect');
    // Both executions of one request_id, each with its commit(s) and the rows they wrote.
    expect(single?.message).toMatch(
      /^request [0-9a-f-]{36} of uid \d+ wrote com\.example\.todo's business state in 2 executions: call #\d+ committed #\d+.* \(todos\.meta\/seq.*\); call #\d+ committed #\d+.* \(todos\.meta\/seq.*todos\/TODO-\d+\)$/,
    );
    expect(single?.evidence.events.length).toBeGreaterThanOrEqual(2);
    expect(single?.evidence.calls).toHaveLength(2);
    const outside = property?.violations.find((v) => v.checker === 'storage-write-outside-transaction');
    expect(outside?.message).toMatch(
      /outside the transaction that records the request — inside mutate, write through tx/,
    );
    expect(outside?.ruleIds).toContain('CETP-10-06');
  });
});

describe('a fixture naming its own bookkeeping tables', () => {
  it('takes them out of business state; a malformed list is refused naming the field', async () => {
    // Told that its tables are bookkeeping, the storage oracles judge nothing of the prepare-writes app.
    const blind = { ...todoPrepareWritesFixture, bookkeepingTables: ['todos', 'todos.meta'] };
    const report = await fuzzProvider(blind, { property: 'idempotency', seed: 0, runs: 20, replayDir: null });
    expect(report.properties[0]?.violations.filter((v) => v.checker.startsWith('storage-'))).toEqual([]);
    const bad = { ...todoFixture, bookkeepingTables: 'todos' } as unknown as typeof todoFixture;
    await expect(fuzzProvider(bad, { property: 'idempotency', runs: 1, replayDir: null })).rejects.toThrow(
      /providers\[0\]\.bookkeepingTables must be an array of table names/,
    );
  });
});

describe('the to-do app that writes through context.storage inside mutate', () => {
  it('deadlocks on its own write lock, and run-progress says what happened and what to do, uncut', async () => {
    const fixture = TODO_STORAGE_IN_MUTATE.fixture({ name: 'todo_storage_in_mutate', tools: TODO_TOOLS });
    const report = await fuzzProvider(fixture, {
      property: 'idempotency',
      seed: 0,
      runs: 50,
      replayDir: null,
    });
    const stuck = report.properties[0]?.violations.find((v) => v.checker === 'run-progress');
    expect(stuck?.message).toMatch(
      /^deadlock: inside mutate, write through tx, not context\.storage — task binder:com\.example\.todo#\d+ of com\.example\.todo wrote through the app's storage while its own transaction "execute add_todo" held the write lock, and waits for that lock forever/,
    );
    expect(stuck?.message.endsWith('...')).toBe(false);
  });
});
