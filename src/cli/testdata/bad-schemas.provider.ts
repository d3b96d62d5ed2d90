/** A `--provider` module (used by the CLI tests) whose optional inputSchemas names an unknown tool. */
import { ALERTS } from '../../fuzz/scenario/fixtures.ts';

export const providers = [{ ...ALERTS, inputSchemas: { ...ALERTS.inputSchemas, no_such_tool: {} } }];
