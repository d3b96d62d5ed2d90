/**
 * Two mistakes a notes app's author could make, each caught only by the app's own oracles
 * (notes.oracles.ts): add_note storing two rows for one request (the invariant one-row-per-add),
 * and add_note ignoring its title argument (the model). The tests fuzz them to show those oracles
 * can fail; the SDK and cetp-sim's protocol oracles see nothing wrong with either.
 */
import { defineProvider, type MutationTool } from '../../src/index.ts';
import { notesFixture } from './notes.provider.ts';
import { addNote, NOTES_DESCRIPTOR, NOTES_PACKAGE, NOTES_TOOLS } from './notes.ts';

/** add_note with `mutate` replaced: the rest of the notes app as it is. */
function notesWith(mutate: MutationTool['mutate']) {
  const add: MutationTool = { ...addNote, mutate };
  const app = defineProvider({
    packageName: NOTES_PACKAGE,
    descriptor: NOTES_DESCRIPTOR,
    tools: NOTES_TOOLS.map((t) => (t.name === 'add_note' ? add : t)),
  });
  const { name, tools, invariants, model } = notesFixture;
  return app.fixture({ name, tools, ...(invariants ? { invariants } : {}), ...(model ? { model } : {}) });
}

/** Stores every note twice (a second row under the next id): one request, two rows. */
export const doubleAddFixture = notesWith(async (call, tx) => {
  const { title, body = '' } = call.args as { title: string; body?: string };
  const seq = (((await tx.get('notes.meta', 'seq')) as number | undefined) ?? 0) + 2;
  for (const n of [seq - 1, seq])
    await tx.put('notes', `NOTE-${n}`, { note_id: `NOTE-${n}`, owner_uid: call.caller.uid, title, body });
  await tx.put('notes.meta', 'seq', seq);
  return { note_id: `NOTE-${seq - 1}` };
});

/** Ignores the title argument: every note is stored as "note". */
export const fixedTitleFixture = notesWith(async (call, tx) => {
  const { body = '' } = call.args as { body?: string };
  const seq = (((await tx.get('notes.meta', 'seq')) as number | undefined) ?? 0) + 1;
  const row = { note_id: `NOTE-${seq}`, owner_uid: call.caller.uid, title: 'note', body };
  await tx.put('notes.meta', 'seq', seq);
  await tx.put('notes', row.note_id, row);
  return { note_id: row.note_id };
});
