package androidx.test.uiautomator;

/** https://developer.android.com/reference/androidx/test/uiautomator/By */
public class By {
  /** https://developer.android.com/reference/androidx/test/uiautomator/By#res(java.lang.String,%20java.lang.String) */
  public static BySelector res(String resourcePackage, String resourceId) { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/androidx/test/uiautomator/By#pkg(java.lang.String) */
  public static BySelector pkg(String applicationPackage) { throw new RuntimeException("Stub!"); }
}
