/**
 * The discovery vocabulary of spec §2.1: the intent action a provider's service declares and the
 * meta-data keys that name its authority and protocol versions (2.1-01 … 2.1-03, 2.1-07). Providers
 * write these into their manifest; consumers read them from the PackageManager.
 */

/** The action of the discovery service every provider app exports (2.1-01). */
export const TOOL_PROVIDER_ACTION = 'com.clawseed.action.TOOL_PROVIDER';
/** Meta-data: the provider's ContentProvider authority (2.1-01). */
export const META_AUTHORITY = 'com.clawseed.tools.authority';
/** Meta-data: "1" for v1 and dual-stack providers, "2" for v2-only ones (2.1-02, 2.1-03). */
export const META_VERSION = 'com.clawseed.tools.version';
/** Meta-data: the comma-separated protocol versions a v2-capable provider serves (2.1-03, 2.1-07). */
export const META_VERSIONS = 'com.clawseed.tools.versions';
