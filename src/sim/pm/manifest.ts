/**
 * AndroidManifest.xml, as far as the simulation needs it: the package, its UID sharing, the
 * permissions it requests and declares, its services, providers and activities with intent filters
 * and meta-data, and its `<queries>` (package visibility, Android 11).
 *
 * `validateManifest` returns typed issues instead of throwing; PackageManager turns the first one
 * into an install failure. `resolveManifest` applies Android's defaults:
 * - `android:exported` of an activity or service defaults to "has an intent filter" below target 31;
 *   from target 31 a component with an intent filter MUST say it explicitly, or the install fails
 *   with INSTALL_PARSE_FAILED_MANIFEST_MALFORMED (developer.android.com/about/versions/12/
 *   behavior-changes-12#exported).
 * - a provider's `android:exported` defaults to true only below target 17 (d.a.c guide/topics/
 *   manifest/provider-element); `android:permission` sets both read and write permissions, and
 *   `readPermission`/`writePermission` take precedence over it.
 *
 * Component names are kept as written (the simulation keys app objects by them); they are not
 * expanded to fully qualified class names.
 */

import type { PathPermissionSpec } from '../content/uri-grants.ts';
import type { SigningDetails } from './signing.ts';

export type ProtectionLevel = 'normal' | 'signature' | 'dangerous';

export interface IntentFilterSpec {
  readonly actions: readonly string[];
  readonly categories?: readonly string[];
  readonly priority?: number;
}

export interface ServiceSpec {
  readonly name: string;
  readonly exported?: boolean;
  readonly permission?: string;
  readonly intentFilters?: readonly IntentFilterSpec[];
  readonly metaData?: Readonly<Record<string, string>>;
}

export interface ProviderSpec {
  readonly name: string;
  readonly authorities: readonly string[];
  readonly exported?: boolean;
  readonly readPermission?: string;
  readonly writePermission?: string;
  /** Sets both read and write permission (each overridden by its specific attribute). */
  readonly permission?: string;
  /** `<path-permission>`s: holding one's permission passes the acquisition gate (uri-grants.ts). */
  readonly pathPermissions?: readonly PathPermissionSpec[];
  /** `android:grantUriPermissions`: its URIs may be granted (Context.grantUriPermission). Default false. */
  readonly grantUriPermissions?: boolean;
  /** `android:process`: ":name" (private to the package) or a full process name. Default: the package's. */
  readonly process?: string;
  readonly metaData?: Readonly<Record<string, string>>;
}

export interface ActivitySpec {
  readonly name: string;
  readonly exported?: boolean;
  readonly intentFilters?: readonly IntentFilterSpec[];
  /** A translucent or dialog theme (windowIsTranslucent): the Activity below stays visible. Default false. */
  readonly translucent?: boolean;
  /** `android:process`, as for a provider: the Activity runs in that process of the package. */
  readonly process?: string;
}

export interface PermissionSpec {
  readonly name: string;
  readonly protectionLevel: ProtectionLevel;
}

export interface QueriesSpec {
  readonly packages?: readonly string[];
  readonly intents?: readonly { readonly action: string }[];
  /** Authorities (`<provider android:authorities>`). */
  readonly providers?: readonly string[];
}

export interface ManifestSpec {
  readonly packageName: string;
  /** Default 1. */
  readonly versionCode?: number;
  /** Default 34. */
  readonly targetSdk?: number;
  readonly sharedUserId?: string;
  readonly usesPermissions?: readonly string[];
  readonly permissions?: readonly PermissionSpec[];
  readonly services?: readonly ServiceSpec[];
  readonly providers?: readonly ProviderSpec[];
  readonly activities?: readonly ActivitySpec[];
  readonly queries?: QueriesSpec;
  /**
   * AppsFilter honours `android:forceQueryable` only for system apps, or for an install with
   * `adb install --force-queryable`; here it stands for either.
   */
  readonly forceQueryable?: boolean;
}

/** An APK: its manifest and its signing block. */
export interface PackageSpec {
  readonly manifest: ManifestSpec;
  readonly signing: SigningDetails;
  /** The Android user it is installed for (default 0): its UID is userId × 100000 + appId (user-handle.ts). */
  readonly userId?: number;
}

export const DEFAULT_TARGET_SDK = 34;
export const DEFAULT_VERSION_CODE = 1;

// ---- resolved (defaults applied) ----

export interface IntentFilterInfo {
  readonly actions: readonly string[];
  readonly categories: readonly string[];
  readonly priority: number;
}

export interface ServiceInfo {
  readonly name: string;
  readonly exported: boolean;
  readonly permission: string | null;
  readonly intentFilters: readonly IntentFilterInfo[];
  readonly metaData: Readonly<Record<string, string>>;
}

export interface ProviderInfo {
  readonly name: string;
  readonly authorities: readonly string[];
  readonly exported: boolean;
  readonly readPermission: string | null;
  readonly writePermission: string | null;
  readonly pathPermissions: readonly PathPermissionSpec[];
  readonly grantUriPermissions: boolean;
  /** The process it runs in (`processNameOf`): the package name unless `android:process` says. */
  readonly processName: string;
  readonly metaData: Readonly<Record<string, string>>;
}

export interface ActivityInfo {
  readonly name: string;
  readonly exported: boolean;
  readonly intentFilters: readonly IntentFilterInfo[];
  readonly translucent: boolean;
  /** The process it runs in (`processNameOf`): the package name unless `android:process` says. */
  readonly processName: string;
}

export interface ResolvedManifest {
  readonly packageName: string;
  readonly versionCode: number;
  readonly targetSdk: number;
  readonly sharedUserId: string | null;
  readonly usesPermissions: readonly string[];
  readonly permissions: readonly PermissionSpec[];
  readonly services: readonly ServiceInfo[];
  readonly providers: readonly ProviderInfo[];
  readonly activities: readonly ActivityInfo[];
  readonly queries: {
    readonly packages: readonly string[];
    readonly intents: readonly { readonly action: string }[];
    readonly providers: readonly string[];
  };
  readonly forceQueryable: boolean;
}

// ---- validation ----

export type ManifestIssueCode =
  | 'package-name-invalid'
  | 'shared-user-id-invalid'
  | 'version-code-invalid'
  | 'target-sdk-invalid'
  | 'component-name-empty'
  | 'duplicate-component'
  | 'provider-no-authorities'
  | 'authority-empty'
  | 'duplicate-authority'
  | 'exported-required'
  | 'permission-name-empty'
  | 'process-name-invalid';

/** The PackageManager install result code an issue fails the install with. */
export type ManifestParseError =
  | 'INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME'
  | 'INSTALL_PARSE_FAILED_BAD_SHARED_USER_ID'
  | 'INSTALL_PARSE_FAILED_MANIFEST_MALFORMED';

export interface ManifestIssue {
  readonly code: ManifestIssueCode;
  /** Where, e.g. `services[1].name`. */
  readonly path: string;
  readonly message: string;
  readonly installError: ManifestParseError;
}

/** Package and shared-user names: Java-identifier segments, at least one '.' (PackageParser.validateName). */
const DOTTED_NAME = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;

/** The part after ':' of a private process name: Java identifiers, '.' allowed but not required. */
const PRIVATE_PROCESS = /^:[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/;

const S = 31;

/**
 * The running checks of one manifest (methods rather than closures: under tsx's keep-names transform
 * every closure made per call costs a defineProperty, and a manifest is checked on every install).
 */
class ManifestChecks {
  readonly issues: ManifestIssue[] = [];
  private readonly seenComponents = new Set<string>();

  constructor(private readonly targetSdk: number) {}

  malformed(code: ManifestIssueCode, path: string, message: string): void {
    this.issues.push({ code, path, message, installError: 'INSTALL_PARSE_FAILED_MANIFEST_MALFORMED' });
  }

  checkName(kind: string, index: number, name: string): void {
    if (name.length === 0) {
      this.malformed('component-name-empty', `${kind}[${index}].name`, `<${kind}> without android:name`);
    } else if (this.seenComponents.has(name)) {
      this.malformed('duplicate-component', `${kind}[${index}].name`, `component ${name} is declared twice`);
    }
    this.seenComponents.add(name);
  }

  /** ComponentParseUtils.buildProcessName → buildCompoundName: ":x" or a dotted full name. */
  checkProcess(kind: string, index: number, process: string | undefined): void {
    if (process === undefined || PRIVATE_PROCESS.test(process) || DOTTED_NAME.test(process)) return;
    this.malformed('process-name-invalid', `${kind}[${index}].process`, `Invalid process name ${process}`);
  }

  checkExported(kind: string, index: number, c: ServiceSpec | ActivitySpec): void {
    if (this.targetSdk >= S && c.exported === undefined && (c.intentFilters?.length ?? 0) > 0) {
      this.malformed(
        'exported-required',
        `${kind}[${index}].exported`,
        `Targeting S+ (version 31 and above) requires that an explicit value for android:exported be defined when intent filters are present (${c.name})`,
      );
    }
  }
}

export function validateManifest(spec: ManifestSpec): ManifestIssue[] {
  const checks = new ManifestChecks(spec.targetSdk ?? DEFAULT_TARGET_SDK);
  const issues = checks.issues;

  if (!DOTTED_NAME.test(spec.packageName)) {
    issues.push({
      code: 'package-name-invalid',
      path: 'packageName',
      message: `bad package name "${spec.packageName}": needs at least one '.' between Java identifiers`,
      installError: 'INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME',
    });
  }
  if (spec.sharedUserId !== undefined && !DOTTED_NAME.test(spec.sharedUserId)) {
    issues.push({
      code: 'shared-user-id-invalid',
      path: 'sharedUserId',
      message: `bad sharedUserId name "${spec.sharedUserId}"`,
      installError: 'INSTALL_PARSE_FAILED_BAD_SHARED_USER_ID',
    });
  }
  if (spec.versionCode !== undefined && !(Number.isSafeInteger(spec.versionCode) && spec.versionCode >= 0)) {
    checks.malformed('version-code-invalid', 'versionCode', `versionCode must be a non-negative integer`);
  }
  if (spec.targetSdk !== undefined && !(Number.isInteger(spec.targetSdk) && spec.targetSdk >= 1)) {
    checks.malformed('target-sdk-invalid', 'targetSdk', `targetSdk must be a positive integer`);
  }

  spec.services?.forEach((s, i) => {
    checks.checkName('services', i, s.name);
    checks.checkExported('services', i, s);
  });
  spec.activities?.forEach((a, i) => {
    checks.checkName('activities', i, a.name);
    checks.checkExported('activities', i, a);
    checks.checkProcess('activities', i, a.process);
  });
  const seenAuthorities = new Set<string>();
  spec.providers?.forEach((p, i) => {
    checks.checkName('providers', i, p.name);
    checks.checkProcess('providers', i, p.process);
    if (p.authorities.length === 0) {
      checks.malformed(
        'provider-no-authorities',
        `providers[${i}].authorities`,
        `provider ${p.name} has no authorities`,
      );
    }
    p.authorities.forEach((a, j) => {
      if (a.length === 0)
        checks.malformed('authority-empty', `providers[${i}].authorities[${j}]`, 'empty authority');
      else if (seenAuthorities.has(a)) {
        checks.malformed(
          'duplicate-authority',
          `providers[${i}].authorities[${j}]`,
          `authority ${a} is declared twice`,
        );
      }
      seenAuthorities.add(a);
    });
  });
  spec.permissions?.forEach((p, i) => {
    if (p.name.length === 0)
      checks.malformed('permission-name-empty', `permissions[${i}].name`, '<permission> without a name');
  });
  return issues;
}

// ---- defaults ----

function resolveFilters(filters: readonly IntentFilterSpec[] | undefined): IntentFilterInfo[] {
  return (filters ?? []).map((f) => ({
    actions: [...f.actions],
    categories: [...(f.categories ?? [])],
    priority: f.priority ?? 0,
  }));
}

/**
 * A component's process name (PackageParser buildProcessName / ComponentParseUtils.buildProcessName):
 * ":name" is private to the package (`<package>:name`), any other value a full name; none: the package's.
 */
export function processNameOf(packageName: string, process: string | undefined): string {
  if (process === undefined) return packageName;
  return process.startsWith(':') ? `${packageName}${process}` : process;
}

/** The manifest with Android's defaults applied (assumes `validateManifest` found no issue). */
export function resolveManifest(spec: ManifestSpec): ResolvedManifest {
  const targetSdk = spec.targetSdk ?? DEFAULT_TARGET_SDK;
  return {
    packageName: spec.packageName,
    versionCode: spec.versionCode ?? DEFAULT_VERSION_CODE,
    targetSdk,
    sharedUserId: spec.sharedUserId ?? null,
    usesPermissions: [...(spec.usesPermissions ?? [])],
    permissions: (spec.permissions ?? []).map((p) => ({ name: p.name, protectionLevel: p.protectionLevel })),
    services: (spec.services ?? []).map((s) => ({
      name: s.name,
      exported: s.exported ?? (s.intentFilters?.length ?? 0) > 0,
      permission: s.permission ?? null,
      intentFilters: resolveFilters(s.intentFilters),
      metaData: { ...(s.metaData ?? {}) },
    })),
    providers: (spec.providers ?? []).map((p) => ({
      name: p.name,
      authorities: [...p.authorities],
      exported: p.exported ?? targetSdk < 17,
      readPermission: p.readPermission ?? p.permission ?? null,
      writePermission: p.writePermission ?? p.permission ?? null,
      pathPermissions: [...(p.pathPermissions ?? [])],
      grantUriPermissions: p.grantUriPermissions ?? false,
      processName: processNameOf(spec.packageName, p.process),
      metaData: { ...(p.metaData ?? {}) },
    })),
    activities: (spec.activities ?? []).map((a) => ({
      name: a.name,
      exported: a.exported ?? (a.intentFilters?.length ?? 0) > 0,
      intentFilters: resolveFilters(a.intentFilters),
      translucent: a.translucent ?? false,
      processName: processNameOf(spec.packageName, a.process),
    })),
    queries: {
      packages: [...(spec.queries?.packages ?? [])],
      intents: (spec.queries?.intents ?? []).map((q) => ({ action: q.action })),
      providers: [...(spec.queries?.providers ?? [])],
    },
    forceQueryable: spec.forceQueryable ?? false,
  };
}

// ---- intent filter matching ----

export interface IntentQuery {
  readonly action?: string;
  readonly categories?: readonly string[];
}

/**
 * IntentFilter.match restricted to action and categories: the filter must list the intent's action
 * (an intent without an action matches any filter that has at least one), and every category of
 * the intent must be in the filter (matchCategories). Data, type and scheme are not modelled.
 */
export function filterMatches(filter: IntentFilterInfo, intent: IntentQuery): boolean {
  if (filter.actions.length === 0) return false;
  if (intent.action !== undefined && !filter.actions.includes(intent.action)) return false;
  return (intent.categories ?? []).every((c) => filter.categories.includes(c));
}

/**
 * The priority a component resolves with: the highest among its filters that match (the resolver
 * keeps one result per component), or null if none matches.
 */
export function matchPriority(filters: readonly IntentFilterInfo[], intent: IntentQuery): number | null {
  let best: number | null = null;
  for (const f of filters) {
    if (filterMatches(f, intent) && (best === null || f.priority > best)) best = f.priority;
  }
  return best;
}
