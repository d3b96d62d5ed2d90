package android.os;

/** https://developer.android.com/reference/android/os/Parcelable */
public interface Parcelable {}
