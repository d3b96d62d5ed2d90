/**
 * legacy — a CETP v1-only provider (spec §8 phase 0: "继续提供 v1 只读工具"), written directly on
 * the simulated ContentProvider, not on the v2 SDK: it has never heard of negotiate, sessions,
 * scopes or operations. Its manifest declares only `com.clawseed.tools.version=1` (no `versions`),
 * so a v2 consumer must treat v1 as its sole version (2.1-04) and may use v1 with it (8-07).
 *
 * The v1 wire is not defined by the spec; cetp-sim assumes (spec/interpretations.md, "v1 and dual
 * stack"): `list_tools` ⇒ status="success", data={"tools":[{name, description, input_schema}]};
 * `execute_tool` with extras tool_name and args ⇒ status="success", data=<result JSON>, or
 * status="error" with error_code and error_message. Every other method — negotiate included — is
 * METHOD_NOT_FOUND. A v1 provider ignores extras it does not know, so a stray protocol_version
 * changes nothing. Both tools are read-only and deterministic (a hash of city and day, no state).
 */
import { hash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../../base/json.ts';
import type { App, AppFactory } from '../../sim/app/app.ts';
import { Bundle } from '../../sim/binder/bundle.ts';
import { ContentProvider } from '../../sim/content/content-provider.ts';
import type { PackageSpec } from '../../sim/pm/manifest.ts';
import { CETP_PROVIDER, providerPackage } from '../sdk/manifest.ts';
import { v1Error, v1Success } from '../sdk/v1.ts';
import { argsSchema, NO_ARGS } from './tool-schemas.ts';

export const LEGACY_PACKAGE = 'com.example.legacy';
export const LEGACY_AUTHORITY = 'com.example.legacy.clawseed.tools';

export const LEGACY_CITIES = ['Berlin', 'Hamburg', 'Munich', 'Shanghai', 'Shenzhen', 'Zurich'] as const;

interface V1Tool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  /** Business validation of already-shaped args: a user-safe problem, or null. */
  readonly check: (args: JsonObject) => string | null;
  readonly run: (args: JsonObject, nowMs: number) => JsonValue;
}

const CONDITIONS = ['sunny', 'cloudy', 'rain', 'snow', 'fog', 'windy'] as const;

function hash32(text: string): number {
  return hash('sha256', text, 'buffer').readUInt32BE(0);
}

function isCity(city: unknown): city is (typeof LEGACY_CITIES)[number] {
  return typeof city === 'string' && (LEGACY_CITIES as readonly string[]).includes(city);
}

const V1_TOOLS: readonly V1Tool[] = [
  {
    name: 'list_cities',
    description: 'Lists the cities with weather data',
    inputSchema: NO_ARGS,
    check: (args) => (Object.keys(args).length > 0 ? 'list_cities takes no arguments.' : null),
    run: () => ({ cities: [...LEGACY_CITIES] }),
  },
  {
    name: 'get_weather',
    description: "Returns today's weather for a city",
    inputSchema: argsSchema({ city: { type: 'string', minLength: 1, maxLength: 64 } }, ['city']),
    check: (args) => {
      if (typeof args.city !== 'string' || Object.keys(args).some((k) => k !== 'city'))
        return 'get_weather needs exactly one string argument, city.';
      return isCity(args.city) ? null : 'Unknown city.';
    },
    run: (args, nowMs) => {
      const city = String(args.city);
      const day = new Date(nowMs).toISOString().slice(0, 10);
      const h = hash32(`${city}/${day}`);
      return {
        city,
        date: day,
        condition: CONDITIONS[h % CONDITIONS.length] ?? 'sunny',
        temperature_c: (h % 45) - 10,
      };
    },
  },
];

export class LegacyV1Provider extends ContentProvider {
  override call(_authority: string, method: string, _arg: string | null, extras: Bundle | null): Bundle {
    switch (method) {
      case 'list_tools':
        return v1Success({
          tools: V1_TOOLS.map((t) => ({
            name: t.name,
            description: t.description,
            input_schema: t.inputSchema,
          })),
        });
      case 'execute_tool':
        return this.execute(extras ?? new Bundle());
      default:
        return v1Error('METHOD_NOT_FOUND', `Unknown method ${method.slice(0, 64)}.`);
    }
  }

  private execute(extras: Bundle): Bundle {
    const name = extras.getString('tool_name') ?? '';
    const tool = V1_TOOLS.find((t) => t.name === name);
    if (!tool) return v1Error('TOOL_NOT_FOUND', 'No such tool.');
    let args: unknown;
    try {
      args = JSON.parse(extras.getString('args') ?? '{}');
    } catch {
      return v1Error('INVALID_ARGS', 'The arguments are not valid JSON.');
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return v1Error('INVALID_ARGS', 'The arguments must be a JSON object.');
    const problem = tool.check(args as JsonObject);
    if (problem) return v1Error('INVALID_ARGS', problem);
    return v1Success(tool.run(args as JsonObject, this.context.currentTimeMillis()));
  }
}

/** The legacy package: meta-data version=1 only, no `versions` (a v1-only provider, §2.1). */
export function legacyPackage(cert = 'legacy-release'): PackageSpec {
  return providerPackage({ packageName: LEGACY_PACKAGE, authority: LEGACY_AUTHORITY, versions: [1], cert });
}

export function legacyApp(): AppFactory {
  return (): App => ({ providers: { [CETP_PROVIDER]: new LegacyV1Provider() } });
}
