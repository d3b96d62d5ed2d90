/**
 * A complete, small CETP provider: a notes app. Each calling app (each UID) has its own notes.
 *
 * - list_notes (read, scope notes.read): the caller's notes;
 * - add_note (create, scope notes.write): adds a note, returns its id;
 * - delete_note (delete, destructive, scope notes.write): deletes one of the caller's notes, after
 *   the user confirms it on the provider's own screen (a delete is always confirmed).
 *
 * Authorization: defineProvider's default — every scope is granted only by the user, per calling
 * app, on the provider's grant screen (the consumer receives AUTH_REQUIRED with a resolution).
 *
 * Written only against cetp-sim's public API. In your own project, import from 'cetp-sim' instead
 * of the relative path (this example sits inside the cetp-sim repository).
 */
import {
  defineProvider,
  type JsonObject,
  type MutationTool,
  type ReadTool,
  type ToolCall,
  ToolFailure,
} from '../../src/index.ts';

export const NOTES_PACKAGE = 'com.example.notes';

interface NoteRow extends JsonObject {
  note_id: string;
  owner_uid: number;
  title: string;
  body: string;
}

const NOTE_ID = { type: 'string', pattern: '^NOTE-[0-9]+$' } as const;

/** The caller's note `id`, or undefined when there is none (or it is someone else's). */
async function ownNote(call: ToolCall, id: string): Promise<NoteRow | undefined> {
  const row = (await call.context.storage.get('notes', id)) as NoteRow | undefined;
  return row?.owner_uid === call.caller.uid ? row : undefined;
}

export const listNotes: ReadTool = {
  name: 'list_notes',
  title: 'List notes',
  description: "Lists the caller's notes",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: { notes: { type: 'array' } },
    required: ['notes'],
  },
  scopes: ['notes.read'],
  annotations: {
    effect: 'read',
    risk: 'low',
    destructive: false,
    idempotent: true,
    openWorld: false,
    confirmation: 'never',
    execution: 'sync',
  },
  read: async (call) => {
    const rows = [...call.context.storage.snapshot('notes').values()] as NoteRow[];
    const notes = rows
      .filter((r) => r.owner_uid === call.caller.uid)
      .map((r) => ({ note_id: r.note_id, title: r.title }));
    return { notes };
  },
};

export const addNote: MutationTool = {
  name: 'add_note',
  title: 'Add note',
  description: 'Adds a note',
  inputSchema: {
    type: 'object',
    properties: {
      title: { type: 'string', minLength: 1, maxLength: 80 },
      body: { type: 'string', maxLength: 2000 },
    },
    required: ['title'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { note_id: NOTE_ID }, required: ['note_id'] },
  scopes: ['notes.write'],
  annotations: {
    effect: 'create',
    risk: 'low',
    destructive: false,
    idempotent: false,
    openWorld: false,
    confirmation: 'never',
    execution: 'sync',
  },
  describeForConfirmation: (call) => {
    const { title } = call.args as { title: string };
    return {
      object: `A new note "${title}"`,
      action: 'Add a note',
      parameters: [['Title', title]],
      irreversible: null,
    };
  },
  // Inside the SDK's transaction: the request's reservation, this change and its result commit together.
  mutate: async (call, tx) => {
    const { title, body = '' } = call.args as { title: string; body?: string };
    const seq = (((await tx.get('notes.meta', 'seq')) as number | undefined) ?? 0) + 1;
    const row: NoteRow = { note_id: `NOTE-${seq}`, owner_uid: call.caller.uid, title, body };
    await tx.put('notes.meta', 'seq', seq);
    await tx.put('notes', row.note_id, row);
    return { note_id: row.note_id };
  },
};

export const deleteNote: MutationTool = {
  name: 'delete_note',
  title: 'Delete note',
  description: 'Deletes one of your notes',
  inputSchema: {
    type: 'object',
    properties: { note_id: NOTE_ID },
    required: ['note_id'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { deleted: { type: 'boolean' }, note_id: NOTE_ID },
    required: ['deleted', 'note_id'],
  },
  scopes: ['notes.write'],
  annotations: {
    effect: 'delete',
    risk: 'moderate',
    destructive: true,
    idempotent: true,
    openWorld: false,
    confirmation: 'always',
    execution: 'sync',
  },
  // Business rules beyond the schema: only the caller's own notes (user-safe messages).
  validate: async (call) =>
    (await ownNote(call, (call.args as { note_id: string }).note_id)) ? [] : ['No such note.'],
  // What the confirmation screen shows: the concrete note and what cannot be undone.
  describeForConfirmation: async (call) => {
    const id = (call.args as { note_id: string }).note_id;
    const row = await ownNote(call, id);
    return {
      object: row ? `Note ${id} "${row.title}"` : `Note ${id}`,
      action: 'Delete the note',
      parameters: [['Note', id]],
      irreversible: 'The note is deleted permanently.',
    };
  },
  mutate: async (call, tx) => {
    const id = (call.args as { note_id: string }).note_id;
    const row = (await tx.get('notes', id)) as NoteRow | undefined;
    if (row?.owner_uid !== call.caller.uid) throw new ToolFailure('CONFLICT', 'The note no longer exists.');
    await tx.delete('notes', id);
    return { deleted: true, note_id: id };
  },
};

export const NOTES_TOOLS = [listNotes, addNote, deleteNote] as const;

export const NOTES_DESCRIPTOR = {
  providerName: 'Example Notes',
  description: 'Your notes, for the assistant to read and write',
  scopes: [
    {
      name: 'notes.read',
      title: 'Read notes',
      description: 'Read your notes',
      access: 'read',
      sensitivity: 'personal',
    },
    {
      name: 'notes.write',
      title: 'Change notes',
      description: 'Add and delete your notes',
      access: 'write',
      sensitivity: 'personal',
    },
  ],
} as const;

/** The provider app: its class, package, app factory and install, from one definition. */
export const NOTES = defineProvider({
  packageName: NOTES_PACKAGE,
  descriptor: NOTES_DESCRIPTOR,
  tools: NOTES_TOOLS,
});
