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
import { SCOPE_NAME_PATTERN, TOOL_NAME_PATTERN } from '../names.ts';
import { type FromSchema, nonEmptyString, type SchemaNode } from './core.ts';

export const TOOL_ANNOTATIONS_SCHEMA = {
  type: 'object',
  properties: {
    effect: { type: 'string', enum: EFFECTS, 'x-rules': ['CETP-3.4-01'], 'x-security-enum': true },
    risk: { type: 'string', enum: RISKS, 'x-rules': ['CETP-3.4-02'], 'x-security-enum': true },
    destructive: { type: 'boolean', 'x-rules': ['CETP-3.4-03'] },
    idempotent: { type: 'boolean', 'x-rules': ['CETP-3.4-04'] },
    open_world: { type: 'boolean', 'x-rules': ['CETP-3.4-05'] },
    confirmation: {
      type: 'string',
      enum: CONFIRMATIONS,
      'x-rules': ['CETP-3.4-06'],
      'x-security-enum': true,
    },
    execution: { type: 'string', enum: EXECUTIONS, 'x-rules': ['CETP-3.4-07'], 'x-security-enum': true },
  },
  required: ['effect', 'risk', 'destructive', 'idempotent', 'open_world', 'confirmation', 'execution'],
  'x-rules': ['CETP-2.3-01'],
  'x-descriptor': true,
} as const satisfies SchemaNode;
export type ToolAnnotations = FromSchema<typeof TOOL_ANNOTATIONS_SCHEMA>;

export const TOOL_DESCRIPTOR_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: TOOL_NAME_PATTERN, 'x-rules': ['CETP-3.1-03'] },
    title: { type: 'string' },
    description: { type: 'string' },
    input_schema: { type: 'object', 'x-rules': ['CETP-8-02'] },
    output_schema: { type: 'object', 'x-rules': ['CETP-2.3-01', 'CETP-8-02'] },
    scopes: {
      type: 'array',
      items: { type: 'string', pattern: SCOPE_NAME_PATTERN, 'x-rules': ['CETP-3.2-03'] },
      'x-rules': ['CETP-3.4-14', 'CETP-8-02'],
    },
    annotations: TOOL_ANNOTATIONS_SCHEMA,
  },
  required: ['name', 'title', 'description', 'input_schema', 'output_schema', 'scopes', 'annotations'],
  'x-rules': ['CETP-4-03'],
  'x-descriptor': true,
} as const satisfies SchemaNode;
export type ToolDescriptor = FromSchema<typeof TOOL_DESCRIPTOR_SCHEMA>;

export const LIST_TOOLS_RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    revision: nonEmptyString(['CETP-3.3-03']),
    tools: { type: 'array', items: TOOL_DESCRIPTOR_SCHEMA, 'x-rules': ['CETP-4-03'] },
  },
  required: ['revision', 'tools'],
  'x-rules': ['CETP-4-03'],
} as const satisfies SchemaNode;
export type ListToolsResponse = FromSchema<typeof LIST_TOOLS_RESPONSE_SCHEMA>;
