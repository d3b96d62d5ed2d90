/**
 * The to-do app whose add_todo stores its row in `prepare`, outside the SDK's transaction:
 *
 *   npx cetp-sim fuzz --provider properties/user-apps/todo-prepare-writes.provider.ts --property idempotency
 *
 * must fail (storage-single-effect, storage-write-outside-transaction).
 */
import { TODO_PREPARE_WRITES, TODO_TOOLS } from './todo.ts';

export const todoPrepareWritesFixture = TODO_PREPARE_WRITES.fixture({
  name: 'todo_prepare_writes',
  tools: TODO_TOOLS,
});

export const providers = [todoPrepareWritesFixture];
