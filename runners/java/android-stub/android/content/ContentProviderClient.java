package android.content;

import android.os.Bundle;
import android.os.RemoteException;

/** https://developer.android.com/reference/android/content/ContentProviderClient */
public class ContentProviderClient implements AutoCloseable {
  /** https://developer.android.com/reference/android/content/ContentProviderClient#call(java.lang.String,%20java.lang.String,%20android.os.Bundle) */
  public Bundle call(String method, String arg, Bundle extras) throws RemoteException { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/content/ContentProviderClient#close() */
  @Override public void close() { throw new RuntimeException("Stub!"); }
}
