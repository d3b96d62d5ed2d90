package android.content;

/** https://developer.android.com/reference/android/content/Context */
public abstract class Context {
  /** https://developer.android.com/reference/android/content/Context#getContentResolver() */
  public abstract ContentResolver getContentResolver();
  /** https://developer.android.com/reference/android/content/Context#getAssets() */
  public abstract android.content.res.AssetManager getAssets();
  /** https://developer.android.com/reference/android/content/Context#getPackageName() */
  public abstract String getPackageName();
}
