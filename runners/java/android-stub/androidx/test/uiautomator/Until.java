package androidx.test.uiautomator;

/** https://developer.android.com/reference/androidx/test/uiautomator/Until */
public class Until {
  /** https://developer.android.com/reference/androidx/test/uiautomator/Until#hasObject(androidx.test.uiautomator.BySelector) */
  public static SearchCondition<Boolean> hasObject(BySelector selector) { throw new RuntimeException("Stub!"); }
}
