/**
 * Reading one typed Bundle key the way Android would, but noticing what Android hides: a missing key
 * and a key of the wrong type both read as the default (BaseBundle.java), so each becomes an issue
 * here instead of a silent 0, false or null.
 */
import type { BundleReader, BundleValueType } from './bundle-types.ts';
import { issue, type ProtocolIssue } from './issues.ts';
import { BUNDLE_KEYS, type BundleKey, type KeyRequirement } from './keys.ts';

const GETTER_OF: Readonly<Record<BundleValueType, string>> = {
  Int: 'getInt',
  Long: 'getLong',
  String: 'getString',
  IntArray: 'getIntArray',
  Boolean: 'getBoolean',
  Bundle: 'getBundle',
  PendingIntent: 'getParcelable',
  ParcelFileDescriptor: 'getParcelable',
  Parcelable: 'getParcelable',
};

const DEFAULT_OF: Readonly<Record<BundleValueType, string>> = {
  Int: '0',
  Long: '0',
  String: 'null',
  IntArray: 'null',
  Boolean: 'false',
  Bundle: 'null',
  PendingIntent: 'null',
  ParcelFileDescriptor: 'null',
  Parcelable: 'null',
};

export type KeyValue<K extends BundleKey> = (typeof BUNDLE_KEYS)[K]['type'] extends 'Int' | 'Long'
  ? number
  : (typeof BUNDLE_KEYS)[K]['type'] extends 'String'
    ? string
    : (typeof BUNDLE_KEYS)[K]['type'] extends 'IntArray'
      ? number[]
      : (typeof BUNDLE_KEYS)[K]['type'] extends 'Boolean'
        ? boolean
        : true; // PendingIntent, ParcelFileDescriptor: the protocol only sees that one is present

/**
 * Reads `req.key` from `bundle`. Returns undefined (pushing an issue when the key is required or
 * present with the wrong type) unless a value of the expected Bundle type is there.
 */
export function readKey<K extends BundleKey>(
  bundle: BundleReader,
  req: KeyRequirement & { key: K },
  issues: ProtocolIssue[],
): KeyValue<K> | undefined {
  const { key } = req;
  const expected: BundleValueType = BUNDLE_KEYS[key].type;
  const stored = bundle.typeOf(key);
  if (stored === null) {
    if (req.required) issues.push(issue('missing_key', `required key ${key} is missing`, req.ruleIds, key));
    return undefined;
  }
  if (stored !== expected) {
    issues.push(
      issue(
        'wrong_bundle_type',
        `${key} is stored as ${stored}, expected ${expected} (Android's ${GETTER_OF[expected]} would return ${DEFAULT_OF[expected]})`,
        req.ruleIds,
        key,
      ),
    );
    return undefined;
  }
  const value = getTyped(bundle, key, expected);
  if (value === null) {
    if (req.required) issues.push(issue('missing_key', `required key ${key} is null`, req.ruleIds, key));
    return undefined;
  }
  return value as KeyValue<K>;
}

function getTyped(bundle: BundleReader, key: string, type: BundleValueType): unknown {
  switch (type) {
    case 'Int':
      return bundle.getInt(key);
    case 'Long':
      return bundle.getLong(key);
    case 'String':
      return bundle.getString(key);
    case 'IntArray':
      return bundle.getIntArray(key);
    case 'Boolean':
      return bundle.getBoolean(key);
    default:
      return true;
  }
}
