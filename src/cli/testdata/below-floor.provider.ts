/**
 * A `--provider` module whose provider is defined with an idempotency window below the spec's floor
 * (CETP-2.2-20: at least 86400 s). defineProvider refuses it as the module loads (used by the CLI
 * tests): exit 2, naming the module, the option, the floor and the rule.
 */
import { defineProvider } from '../../index.ts';

const TODO = defineProvider({
  packageName: 'com.example.todo',
  descriptor: { providerName: 'To-do', description: 'Your to-do list', scopes: [] },
  tools: [],
  options: { limits: { idempotencyWindowSeconds: 3600 } },
});

export const providers = [TODO.fixture({ name: 'todo', tools: {} })];
