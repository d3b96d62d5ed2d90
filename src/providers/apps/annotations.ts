/**
 * The tool annotations (spec §3.4) the reference apps share: a read of the caller's own data
 * (low risk, idempotent, closed world, never confirmed, sync) and a confirmed delete of the
 * caller's own rows. A tool that differs in one field spreads a preset and overrides that field,
 * so the field order a descriptor carries on the wire stays the same.
 */
import type { ToolAnnotations } from '../sdk/types.ts';

/** Reads the caller's own data: nothing to confirm (3.4). */
export const READ_ANNOTATIONS = {
  effect: 'read',
  risk: 'low',
  destructive: false,
  idempotent: true,
  openWorld: false,
  confirmation: 'never',
  execution: 'sync',
} as const satisfies ToolAnnotations;

/** Deletes the caller's own rows for good: destructive (idempotent), so always confirmed (4.3). */
export const CONFIRMED_DELETE_ANNOTATIONS = {
  effect: 'delete',
  risk: 'moderate',
  destructive: true,
  idempotent: true,
  openWorld: false,
  confirmation: 'always',
  execution: 'sync',
} as const satisfies ToolAnnotations;
