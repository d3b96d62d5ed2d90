package android.os;

/** https://developer.android.com/reference/android/os/Handler */
public class Handler {}
