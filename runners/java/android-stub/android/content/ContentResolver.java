package android.content;

/** https://developer.android.com/reference/android/content/ContentResolver */
public abstract class ContentResolver {
  /** https://developer.android.com/reference/android/content/ContentResolver#acquireUnstableContentProviderClient(java.lang.String) */
  public final ContentProviderClient acquireUnstableContentProviderClient(String name) { throw new RuntimeException("Stub!"); }
}
