package androidx.test.uiautomator;

/** https://developer.android.com/reference/androidx/test/uiautomator/BySelector */
public class BySelector {}
