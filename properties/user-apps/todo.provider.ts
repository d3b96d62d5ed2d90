/**
 * The correct to-do app as a fuzz subject:
 *
 *   npx cetp-sim fuzz --provider properties/user-apps/todo.provider.ts --property lifecycle --seed 1
 */
import { TODO, TODO_TOOLS } from './todo.ts';

export const todoFixture = TODO.fixture({ name: 'todo', tools: TODO_TOOLS });

export const providers = [todoFixture];
