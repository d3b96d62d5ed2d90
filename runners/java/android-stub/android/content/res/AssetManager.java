package android.content.res;

import java.io.IOException;
import java.io.InputStream;

/** https://developer.android.com/reference/android/content/res/AssetManager */
public final class AssetManager {
  /** https://developer.android.com/reference/android/content/res/AssetManager#open(java.lang.String) */
  public InputStream open(String fileName) throws IOException { throw new RuntimeException("Stub!"); }
}
