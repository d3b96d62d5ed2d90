package android.content;

/** https://developer.android.com/reference/android/content/Intent */
public class Intent {}
