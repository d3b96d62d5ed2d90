package androidx.test.uiautomator;

/** https://developer.android.com/reference/androidx/test/uiautomator/UiObject2 */
public class UiObject2 {
  /** https://developer.android.com/reference/androidx/test/uiautomator/UiObject2#click() */
  public void click() { throw new RuntimeException("Stub!"); }
}
