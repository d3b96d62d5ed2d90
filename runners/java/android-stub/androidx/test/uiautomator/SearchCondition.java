package androidx.test.uiautomator;

/** https://developer.android.com/reference/androidx/test/uiautomator/SearchCondition */
public abstract class SearchCondition<U> {}
