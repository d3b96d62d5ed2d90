/**
 * What the user sees and says (activity-types.ts re-exports it), a leaf: the ground truth
 * (ground-truth.ts) records screens and answers without knowing activities.
 */

/** What an Activity displays: the only thing the simulated user decides on. */
export interface Screen {
  readonly title: string;
  readonly lines: readonly string[];
  readonly approveLabel?: string;
  readonly denyLabel?: string;
}

/** A user's answer to a shown screen ('back' = pressed Back without deciding). */
export type UserAnswer = 'approve' | 'deny' | 'back';
