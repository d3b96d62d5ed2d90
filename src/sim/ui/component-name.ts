/** android.content.ComponentName (intent.ts re-exports it), a leaf: PendingIntent tokens name it too. */
export interface ComponentName {
  readonly packageName: string;
  readonly className: string;
}
