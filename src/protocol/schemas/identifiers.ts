/**
 * The wire identifiers that stand in more than one schema: a scope name (a scope descriptor, a
 * tool's `scopes`) and a provider id (provider info, the negotiate response). Their patterns are
 * protocol/names.ts's, which also checks them outside the schemas.
 */
import { PACKAGE_NAME_PATTERN, SCOPE_NAME_PATTERN } from '../names.ts';
import { patterned } from './core.ts';

/** A scope name (CETP-3.2-03). */
export const SCOPE_NAME_SCHEMA = patterned(SCOPE_NAME_PATTERN, ['CETP-3.2-03']);
/** A provider id: a package name, or a name in its namespace (CETP-3.1-01/02). */
export const PROVIDER_ID_SCHEMA = patterned(PACKAGE_NAME_PATTERN, ['CETP-3.1-01', 'CETP-3.1-02']);
