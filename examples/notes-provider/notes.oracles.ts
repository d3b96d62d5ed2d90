/**
 * The notes app's own oracles: what must be true of its storage after any run, whatever the faults
 * (invariants), and what its tools do, as a plain model (fast-check's model-based style). The fixture
 * in notes.provider.ts carries them; every property checks them after every run, as
 * `invariant:one-row-per-add`, `invariant:row-belongs-to-adder` and `model:notes`.
 *
 * In your own project, import the types from 'cetp-sim'.
 */
import type { AppState, Invariant, RequestHistory, RunHistory, ToolModel } from '../../src/index.ts';

interface NoteRow {
  readonly note_id: string;
  readonly owner_uid: number;
  readonly title: string;
  readonly body: string;
}

/** The requests of `tool` sent to the app as it is now (since its data was last wiped). */
function current(history: RunHistory, tool: string): RequestHistory[] {
  return history.requests.filter((r) => r.tool === tool && r.incarnation === history.incarnations);
}

const succeeded = (r: RequestHistory) => r.outcome.kind === 'succeeded';
/** Took effect or may have: succeeded, or no answer was ever seen (the provider died, the reply was lost). */
const mayHaveTakenEffect = (r: RequestHistory) =>
  r.outcome.kind === 'succeeded' || r.outcome.kind === 'unknown';

function notesOf(state: AppState): NoteRow[] {
  return Object.values(state.notes ?? {}) as unknown as NoteRow[];
}

export const notesInvariants: readonly Invariant[] = [
  {
    id: 'one-row-per-add',
    description:
      'one note row per add_note request that succeeded (less the notes deleted), however often it was sent',
    ruleIds: ['CETP-6-01'],
    check(state, history) {
      const adds = current(history, 'add_note');
      const deletes = current(history, 'delete_note');
      const rows = notesOf(state).length;
      // Each add_note made one row, each delete_note removed one: with unanswered requests, a range.
      const atLeast = adds.filter(succeeded).length - deletes.filter(mayHaveTakenEffect).length;
      const atMost = adds.filter(mayHaveTakenEffect).length - deletes.filter(succeeded).length;
      if (rows > atMost) return `${rows} notes, but at most ${atMost} add_note requests can have made one`;
      if (rows < atLeast)
        return `${rows} notes, but ${atLeast} add_note requests succeeded and were not deleted`;
    },
  },
  {
    id: 'row-belongs-to-adder',
    description: "a note added by a successful add_note belongs to that request's caller",
    check(state, history) {
      const problems: string[] = [];
      for (const add of current(history, 'add_note')) {
        if (add.outcome.kind !== 'succeeded') continue;
        const id = (add.outcome.result as { note_id?: string } | null)?.note_id ?? '';
        const row = state.notes?.[id] as NoteRow | undefined;
        if (row && row.owner_uid !== add.callerUid)
          problems.push(`${id} was added by uid ${add.callerUid} but belongs to uid ${row.owner_uid}`);
      }
      return problems;
    },
  },
];

/** The model: note id → what the note holds (the ids are the app's, read from each add_note's result). */
type Notes = Map<string, { owner_uid: number; title: string; body: string }>;

export const notesModel: ToolModel<Notes> = {
  initial: () => new Map(),
  tools: {
    add_note(notes, { args, result, callerUid }) {
      const { title, body = '' } = args as { title: string; body?: string };
      notes.set((result as { note_id: string }).note_id, { owner_uid: callerUid, title, body });
    },
    delete_note(notes, { args }) {
      notes.delete((args as { note_id: string }).note_id);
    },
  },
  fromStorage: (state) =>
    new Map(notesOf(state).map((r) => [r.note_id, { owner_uid: r.owner_uid, title: r.title, body: r.body }])),
};
