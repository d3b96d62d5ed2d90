/** Every tool handler throws: every call is answered INTERNAL_ERROR, nothing ever succeeds. */
import { brokenTools } from './kit.ts';

export const providers = [
  brokenTools(async () => {
    throw new Error('NullPointerException in ToolHandler.run');
  }),
];
