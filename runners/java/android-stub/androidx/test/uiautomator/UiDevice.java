package androidx.test.uiautomator;

import android.app.Instrumentation;

/** https://developer.android.com/reference/androidx/test/uiautomator/UiDevice */
public class UiDevice {
  /** https://developer.android.com/reference/androidx/test/uiautomator/UiDevice#getInstance(android.app.Instrumentation) */
  public static UiDevice getInstance(Instrumentation instrumentation) { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/androidx/test/uiautomator/UiDevice#wait(androidx.test.uiautomator.SearchCondition%3CU%3E,long) */
  public <U> U wait(SearchCondition<U> condition, long timeout) { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/androidx/test/uiautomator/UiDevice#findObject(androidx.test.uiautomator.BySelector) */
  public UiObject2 findObject(BySelector selector) { throw new RuntimeException("Stub!"); }
  /** https://developer.android.com/reference/androidx/test/uiautomator/UiDevice#pressBack() */
  public boolean pressBack() { throw new RuntimeException("Stub!"); }
}
