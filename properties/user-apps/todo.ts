/**
 * A newcomer's to-do app, written from docs/writing-a-provider.md with `defineProvider` (issue 30):
 * each calling app (UID) has its own to-dos.
 *
 * - list_todos (read, scope todos.read): the caller's to-dos;
 * - add_todo (create, scope todos.write): adds a to-do, returns its id;
 * - complete_todo (update, idempotent, scope todos.write): marks one of the caller's to-dos done.
 *
 * Two versions of add_todo, both accepted by the SDK and by `tsc`:
 * - `TODO`: the row is written inside `mutate`, through `tx` (the SDK's transaction): correct;
 * - `TODO_PREPARE_WRITES`: the row is written in `prepare`, through `call.context.storage.put`
 *   (each put its own commit, outside the SDK's transaction), and `mutate` only returns the id. A
 *   kill between the two commits, or the same request sent twice at once, leaves two rows for one
 *   request: the bug the storage-level oracles must see (src/check/checkers/storage.ts).
 *
 * Fixtures (todo.provider.ts, todo-prepare-writes.provider.ts) fuzz both from the CLI.
 */
import {
  defineProvider,
  type JsonObject,
  type MutationTool,
  type ReadTool,
  ToolFailure,
} from '../../src/index.ts';

export const TODO_PACKAGE = 'com.example.todo';

interface TodoRow extends JsonObject {
  todo_id: string;
  owner_uid: number;
  text: string;
  done: boolean;
}

const TODO_ID = { type: 'string', pattern: '^TODO-[0-9]+$' } as const;

const listTodos: ReadTool = {
  name: 'list_todos',
  title: 'List to-dos',
  description: "Lists the caller's to-dos",
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: { type: 'object', properties: { todos: { type: 'array' } }, required: ['todos'] },
  scopes: ['todos.read'],
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
    const rows = [...call.context.storage.snapshot('todos').values()] as TodoRow[];
    return {
      todos: rows
        .filter((r) => r.owner_uid === call.caller.uid)
        .map((r) => ({ todo_id: r.todo_id, text: r.text, done: r.done })),
    };
  },
};

const ADD_BASE: Omit<MutationTool, 'mutate' | 'prepare'> = {
  name: 'add_todo',
  title: 'Add to-do',
  description: 'Adds a to-do',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', minLength: 1, maxLength: 200 } },
    required: ['text'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { todo_id: TODO_ID }, required: ['todo_id'] },
  scopes: ['todos.write'],
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
    const { text } = call.args as { text: string };
    return {
      object: `A new to-do "${text}"`,
      action: 'Add a to-do',
      parameters: [['Text', text] as const],
      irreversible: null,
    };
  },
};

/** Correct: the row and the id counter are written through `tx`, in the SDK's transaction. */
const addTodo: MutationTool = {
  ...ADD_BASE,
  mutate: async (call, tx) => {
    const { text } = call.args as { text: string };
    const seq = (((await tx.get('todos.meta', 'seq')) as number | undefined) ?? 0) + 1;
    const row: TodoRow = { todo_id: `TODO-${seq}`, owner_uid: call.caller.uid, text, done: false };
    await tx.put('todos.meta', 'seq', seq);
    await tx.put('todos', row.todo_id, row);
    return { todo_id: row.todo_id };
  },
};

/** The newcomer's bug: the row is stored in `prepare`, outside the SDK's transaction. */
const addTodoInPrepare: MutationTool = {
  ...ADD_BASE,
  prepare: async (call) => {
    const { text } = call.args as { text: string };
    const storage = call.context.storage;
    const seq = (((await storage.get('todos.meta', 'seq')) as number | undefined) ?? 0) + 1;
    const row: TodoRow = { todo_id: `TODO-${seq}`, owner_uid: call.caller.uid, text, done: false };
    await storage.put('todos.meta', 'seq', seq);
    await storage.put('todos', row.todo_id, row);
    return { todo_id: row.todo_id };
  },
  mutate: async (_call, _tx, prepared) => ({ todo_id: (prepared as { todo_id: string }).todo_id }),
};

/** Another newcomer's slip: inside `mutate`, the row goes through `call.context.storage`, not `tx`. */
const addTodoThroughStorage: MutationTool = {
  ...ADD_BASE,
  mutate: async (call) => {
    const { text } = call.args as { text: string };
    const row: TodoRow = { todo_id: 'TODO-1', owner_uid: call.caller.uid, text, done: false };
    await call.context.storage.put('todos', row.todo_id, row);
    return { todo_id: row.todo_id };
  },
};

const completeTodo: MutationTool = {
  name: 'complete_todo',
  title: 'Complete to-do',
  description: 'Marks one of your to-dos done',
  inputSchema: {
    type: 'object',
    properties: { todo_id: TODO_ID },
    required: ['todo_id'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { todo_id: TODO_ID, done: { type: 'boolean' } },
    required: ['todo_id', 'done'],
  },
  scopes: ['todos.write'],
  annotations: {
    effect: 'update',
    risk: 'low',
    destructive: false,
    idempotent: true,
    openWorld: false,
    confirmation: 'never',
    execution: 'sync',
  },
  describeForConfirmation: (call) => {
    const id = (call.args as { todo_id: string }).todo_id;
    return {
      object: `To-do ${id}`,
      action: 'Mark the to-do done',
      parameters: [['To-do', id] as const],
      irreversible: null,
    };
  },
  mutate: async (call, tx) => {
    const id = (call.args as { todo_id: string }).todo_id;
    const row = (await tx.get('todos', id)) as TodoRow | undefined;
    if (row?.owner_uid !== call.caller.uid) throw new ToolFailure('CONFLICT', 'No such to-do.');
    if (!row.done) await tx.put('todos', id, { ...row, done: true });
    return { todo_id: id, done: true };
  },
};

const DESCRIPTOR = {
  providerName: 'Example To-do',
  description: 'Your to-do list, for the assistant to read and write',
  scopes: [
    {
      name: 'todos.read',
      title: 'Read to-dos',
      description: 'Read your to-dos',
      access: 'read',
      sensitivity: 'personal',
    },
    {
      name: 'todos.write',
      title: 'Change to-dos',
      description: 'Add and complete your to-dos',
      access: 'write',
      sensitivity: 'personal',
    },
  ],
} as const;

/** The correct to-do app. */
export const TODO = defineProvider({
  packageName: TODO_PACKAGE,
  descriptor: DESCRIPTOR,
  tools: [listTodos, addTodo, completeTodo],
});

/** The same app with add_todo's row stored in `prepare`, outside the SDK's transaction. */
export const TODO_PREPARE_WRITES = defineProvider({
  packageName: TODO_PACKAGE,
  descriptor: DESCRIPTOR,
  tools: [listTodos, addTodoInPrepare, completeTodo],
});

/** The same app with add_todo writing through `context.storage` inside `mutate`: it deadlocks. */
export const TODO_STORAGE_IN_MUTATE = defineProvider({
  packageName: TODO_PACKAGE,
  descriptor: DESCRIPTOR,
  tools: [listTodos, addTodoThroughStorage, completeTodo],
});

/** The argument pools a newcomer writes (docs/writing-a-provider.md §4). */
export const TODO_TOOLS = {
  list_todos: [{}],
  add_todo: [{ text: 'buy milk' }, { text: 'call mum' }],
  complete_todo: [{ todo_id: '$OWN:todo_id' }, { todo_id: 'TODO-1' }],
};
