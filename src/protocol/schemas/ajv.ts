/**
 * The one place that imports ajv's Draft 2020-12 class. Under NodeNext the default import of this
 * CommonJS module is the module object, whose `default` is the class; at run time Node's and vite's
 * interop may hand over either, hence the fallback.
 */

import Ajv2020Module from 'ajv/dist/2020.js';
import type { AnyValidateFunction } from 'ajv/dist/core.js';
import { caches } from '../../base/caches.ts';
import { DRAFT_2020_12 } from './core.ts';

export const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
export type Ajv2020Instance = InstanceType<typeof Ajv2020>;
export type { ErrorObject, ValidateFunction } from 'ajv';

/** The options of the Ajv that checks tool schemas (tool-schema.ts), the meta validator's too. */
export const AJV_OPTIONS = {
  strict: false,
  logger: false,
  addUsedSchema: false,
  validateFormats: false,
} as const;

/**
 * Ajv checks each schema against Draft 2020-12's meta-schema before compiling it, and every instance
 * compiled that meta-schema anew: ~0.1 s of CPU each, several times per thread (each checker holds a
 * tool schema compiler, the wire validators another Ajv). One meta validator per thread, compiled by
 * an instance with AJV_OPTIONS, serves every SharedMetaAjv: the same verdicts, and for tool schemas
 * the same messages (Ajv's own validateSchema still runs, in its own order, and words the error from
 * the validator's errors; an invalid wire schema of cetp-sim's own would be named by its first error).
 */
const META = caches.lazy('protocol/schemas: Draft 2020-12 meta-schema validator', () => {
  const validate = new Ajv2020(AJV_OPTIONS).getSchema(DRAFT_2020_12);
  if (validate === undefined) throw new Error(`Ajv has no meta-schema ${DRAFT_2020_12}`);
  return validate;
});

export class SharedMetaAjv extends Ajv2020 {
  override getSchema<T = unknown>(keyRef: string): AnyValidateFunction<T> | undefined {
    if (keyRef === DRAFT_2020_12) return META.get() as AnyValidateFunction<T> | undefined;
    return super.getSchema<T>(keyRef);
  }
}
