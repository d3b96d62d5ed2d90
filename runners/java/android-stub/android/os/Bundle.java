package android.os;

import java.util.Set;

/** https://developer.android.com/reference/android/os/Bundle */
public final class Bundle {
  private static RuntimeException stub() { return new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/android/os/Bundle#Bundle() */
  public Bundle() { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#keySet() */
  public Set<String> keySet() { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#get(java.lang.String) */
  @Deprecated public Object get(String key) { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#putInt(java.lang.String,%20int) */
  public void putInt(String key, int value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#putLong(java.lang.String,%20long) */
  public void putLong(String key, long value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#putBoolean(java.lang.String,%20boolean) */
  public void putBoolean(String key, boolean value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#putDouble(java.lang.String,%20double) */
  public void putDouble(String key, double value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/Bundle#putFloat(java.lang.String,%20float) */
  public void putFloat(String key, float value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#putString(java.lang.String,%20java.lang.String) */
  public void putString(String key, String value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/Bundle#putByteArray(java.lang.String,%20byte[]) */
  public void putByteArray(String key, byte[] value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#putStringArray(java.lang.String,%20java.lang.String[]) */
  public void putStringArray(String key, String[] value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#putIntArray(java.lang.String,%20int[]) */
  public void putIntArray(String key, int[] value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/BaseBundle#putLongArray(java.lang.String,%20long[]) */
  public void putLongArray(String key, long[] value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/Bundle#putBundle(java.lang.String,%20android.os.Bundle) */
  public void putBundle(String key, Bundle value) { throw stub(); }
  /** https://developer.android.com/reference/android/os/Bundle#putParcelable(java.lang.String,%20android.os.Parcelable) */
  public void putParcelable(String key, Parcelable value) { throw stub(); }
}
