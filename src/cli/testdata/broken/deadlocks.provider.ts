/**
 * Every write deadlocks: inside the write transaction the handler opens a second transaction on the
 * same store, which waits for the lock its own transaction holds. Reads answer normally.
 */
import { isReadTool } from '../../../providers/sdk/types.ts';
import { brokenTools } from './kit.ts';

export const providers = [
  brokenTools(async (call, tool) => {
    if (isReadTool(tool)) return tool.read(call);
    await call.context.storage.put('audit', call.requestId, { nested: true });
    return {};
  }),
];
