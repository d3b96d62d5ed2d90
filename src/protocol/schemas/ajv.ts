/**
 * The one place that imports ajv's Draft 2020-12 class. Under NodeNext the default import of this
 * CommonJS module is the module object, whose `default` is the class; at run time Node's and vite's
 * interop may hand over either, hence the fallback.
 */
import Ajv2020Module from 'ajv/dist/2020.js';

export const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
export type Ajv2020Instance = InstanceType<typeof Ajv2020>;
export type { ErrorObject, ValidateFunction } from 'ajv';
export type { AnyValidateFunction } from 'ajv/dist/core.js';
