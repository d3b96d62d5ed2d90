/**
 * The notes provider as a fuzz subject:
 *
 *   npx cetp-sim fuzz --provider examples/notes-provider/notes.provider.ts
 *
 * The fixture says only what the provider cannot: the arguments to call its tools with. Effects,
 * scopes, confirmation policies and input schemas are read from its own list_tools; package,
 * authority, install and the user-granted scopes come from its definition. Its own oracles
 * (notes.oracles.ts) are checked after every run beside cetp-sim's: two invariants over its storage
 * and history, and a model of its tools.
 */

import { notesInvariants, notesModel } from './notes.oracles.ts';
import { NOTES } from './notes.ts';

export const notesFixture = NOTES.fixture({
  name: 'notes',
  tools: {
    list_notes: [{}],
    add_note: [{ title: 'groceries', body: 'milk' }, { title: 'todo' }],
    // `$OWN:note_id`: the note_id of the caller's latest result that had one (a note it added).
    delete_note: [{ note_id: '$OWN:note_id' }, { note_id: 'NOTE-1' }],
  },
  invariants: notesInvariants,
  model: notesModel,
});

export const providers = [notesFixture];
