/**
 * android.content.Intent, as far as PendingIntents and Activity results need it: identity by
 * filterEquals (action, data, type, package, component, categories — never extras), and
 * Intent.fillIn, whose rules decide what the holder of a *mutable* PendingIntent can change.
 */
import { Bundle } from '../binder/bundle.ts';
import { fileDescriptorsIn } from '../binder/parcel.ts';

import type { ComponentName } from './component-name.ts';

export type { ComponentName } from './component-name.ts';

/** Intent.fillIn flags: allow overwriting a field the base Intent already set. */
export const FILL_IN_ACTION = 1 << 0;
export const FILL_IN_DATA = 1 << 1;
export const FILL_IN_CATEGORIES = 1 << 2;
export const FILL_IN_COMPONENT = 1 << 3;
export const FILL_IN_PACKAGE = 1 << 4;

/** Intent.FLAG_ACTIVITY_NEW_TASK: start the activity in a new task (a result cannot come back). */
export const FLAG_ACTIVITY_NEW_TASK = 0x1000_0000;

export interface IntentInit {
  action?: string | null;
  data?: string | null;
  type?: string | null;
  categories?: readonly string[] | null;
  component?: ComponentName | null;
  package?: string | null;
  extras?: Bundle | null;
  /** Launch flags (not part of filterEquals). */
  flags?: number;
}

export class Intent {
  action: string | null;
  data: string | null;
  type: string | null;
  categories: string[] | null;
  component: ComponentName | null;
  package: string | null;
  extras: Bundle;
  flags: number;

  constructor(init: IntentInit = {}) {
    this.action = init.action ?? null;
    this.data = init.data ?? null;
    this.type = init.type ?? null;
    this.categories = init.categories ? [...init.categories] : null;
    this.component = init.component ?? null;
    this.package = init.package ?? null;
    this.flags = init.flags ?? 0;
    this.extras = new Bundle();
    if (init.extras) this.extras.putAll(init.extras);
  }

  static explicit(packageName: string, className: string, init: IntentInit = {}): Intent {
    return new Intent(Object.assign({}, init, { component: { packageName, className } }));
  }

  /** Explicit: a component is named (a package alone still resolves among that package's activities). */
  get isExplicit(): boolean {
    return this.component !== null;
  }

  clone(): Intent {
    return new Intent(this);
  }

  /** Intent.filterEquals: the identity PendingIntent tokens are matched by. Extras are ignored. */
  filterEquals(other: Intent): boolean {
    return (
      this.action === other.action &&
      this.data === other.data &&
      this.type === other.type &&
      this.package === other.package &&
      sameComponent(this.component, other.component) &&
      sameCategories(this.categories, other.categories)
    );
  }

  /** A stable string of the filterEquals fields (a map key for PendingIntent records). */
  filterKey(): string {
    return JSON.stringify([
      this.action,
      this.data,
      this.type,
      this.package,
      this.component ? `${this.component.packageName}/${this.component.className}` : null,
      this.categories ? [...this.categories].sort() : null,
    ]);
  }

  /**
   * Intent.fillIn(other, flags): copies fields of `other` that this Intent left unset (or that
   * `flags` allows overwriting). The component is filled only with FILL_IN_COMPONENT. Extras merge,
   * with this Intent's own extras winning over `other`'s.
   */
  fillIn(other: Intent, flags: number): void {
    if (other.action !== null && (this.action === null || (flags & FILL_IN_ACTION) !== 0))
      this.action = other.action;
    if (
      (other.data !== null || other.type !== null) &&
      ((this.data === null && this.type === null) || (flags & FILL_IN_DATA) !== 0)
    ) {
      this.data = other.data;
      this.type = other.type;
    }
    if (other.categories !== null && (this.categories === null || (flags & FILL_IN_CATEGORIES) !== 0)) {
      this.categories = [...other.categories];
    }
    if (other.package !== null && (this.package === null || (flags & FILL_IN_PACKAGE) !== 0)) {
      this.package = other.package;
    }
    if (other.component !== null && (flags & FILL_IN_COMPONENT) !== 0) this.component = other.component;
    if (!other.extras.isEmpty()) {
      const merged = new Bundle();
      merged.putAll(other.extras);
      merged.putAll(this.extras);
      this.extras = merged;
    }
  }

  hasFileDescriptors(): boolean {
    return fileDescriptorsIn(this.extras).length > 0;
  }

  toString(): string {
    const parts: string[] = [];
    if (this.action) parts.push(`act=${this.action}`);
    if (this.data) parts.push(`dat=${this.data}`);
    if (this.package) parts.push(`pkg=${this.package}`);
    if (this.component) parts.push(`cmp=${this.component.packageName}/${this.component.className}`);
    if (!this.extras.isEmpty()) parts.push('(has extras)');
    return `Intent { ${parts.join(' ')} }`;
  }
}

function sameComponent(a: ComponentName | null, b: ComponentName | null): boolean {
  if (a === null || b === null) return a === b;
  return a.packageName === b.packageName && a.className === b.className;
}

function sameCategories(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return (a?.length ?? 0) === 0 && (b?.length ?? 0) === 0;
  if (a.length !== b.length) return false;
  const sa = [...a].sort();
  const sb = [...b].sort();
  return sa.every((x, i) => x === sb[i]);
}
