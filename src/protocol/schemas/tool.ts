/**
 * Wire shapes of `list_tools` (spec §3.3, §3.4): the tool descriptor, its annotations, and the
 * response `{revision, tools}`. Descriptor objects allow unknown fields (CETP-3.2-10) but reject
 * missing required fields (CETP-3.2-11) and unknown security enum values (CETP-3.2-12).
 *
 * Required fields: every field of the spec's example descriptor; all seven annotations (NOTES 15,
 * see annotations.ts). input_schema and output_schema must be JSON objects here; their content is
 * checked by tool-schema.ts.
 */
import { CONFIRMATIONS, EFFECTS, EXECUTIONS, RISKS } from '../annotations.ts';
import { TOOL_NAME_PATTERN } from '../names.ts';
import {
  descriptor,
  type FromSchema,
  flag,
  nonEmptyString,
  object,
  patterned,
  securityEnum,
} from './core.ts';
import { SCOPE_NAME_SCHEMA } from './identifiers.ts';

export const TOOL_ANNOTATIONS_SCHEMA = descriptor(
  {
    effect: securityEnum(EFFECTS, ['CETP-3.4-01']),
    risk: securityEnum(RISKS, ['CETP-3.4-02']),
    destructive: flag(['CETP-3.4-03']),
    idempotent: flag(['CETP-3.4-04']),
    open_world: flag(['CETP-3.4-05']),
    confirmation: securityEnum(CONFIRMATIONS, ['CETP-3.4-06']),
    execution: securityEnum(EXECUTIONS, ['CETP-3.4-07']),
  },
  ['effect', 'risk', 'destructive', 'idempotent', 'open_world', 'confirmation', 'execution'],
  ['CETP-2.3-01'],
);
export type ToolAnnotations = FromSchema<typeof TOOL_ANNOTATIONS_SCHEMA>;

export const TOOL_DESCRIPTOR_SCHEMA = descriptor(
  {
    name: patterned(TOOL_NAME_PATTERN, ['CETP-3.1-03']),
    title: { type: 'string' },
    description: { type: 'string' },
    input_schema: { type: 'object', 'x-rules': ['CETP-8-02'] },
    output_schema: { type: 'object', 'x-rules': ['CETP-2.3-01', 'CETP-8-02'] },
    scopes: { type: 'array', items: SCOPE_NAME_SCHEMA, 'x-rules': ['CETP-3.4-14', 'CETP-8-02'] },
    annotations: TOOL_ANNOTATIONS_SCHEMA,
  },
  ['name', 'title', 'description', 'input_schema', 'output_schema', 'scopes', 'annotations'],
  ['CETP-4-03'],
);
export type ToolDescriptor = FromSchema<typeof TOOL_DESCRIPTOR_SCHEMA>;

export const LIST_TOOLS_RESPONSE_SCHEMA = object(
  {
    revision: nonEmptyString(['CETP-3.3-03']),
    tools: { type: 'array', items: TOOL_DESCRIPTOR_SCHEMA, 'x-rules': ['CETP-4-03'] },
  },
  ['revision', 'tools'],
  ['CETP-4-03'],
);
export type ListToolsResponse = FromSchema<typeof LIST_TOOLS_RESPONSE_SCHEMA>;
