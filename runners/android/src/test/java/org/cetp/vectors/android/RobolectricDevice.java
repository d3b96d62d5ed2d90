package org.cetp.vectors.android;

import static org.robolectric.Shadows.shadowOf;

import android.app.Application;
import android.content.ContentProvider;
import android.content.Context;
import android.content.ContextWrapper;
import android.content.pm.ProviderInfo;
import android.os.Bundle;
import android.os.Parcel;
import com.example.alerts.AlertsDatabase;
import com.example.alerts.AlertsProvider;
import com.example.alerts.ProviderClock;
import java.util.Collections;
import java.util.function.Supplier;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.shadows.ShadowBinder;
import org.robolectric.shadows.ShadowContentResolver;

/**
 * The device under Robolectric: the provider app installed as its own package (its Context says
 * com.example.alerts, so its PendingIntents are its own) with its extras parcelled, a kill that drops the process's memory
 * (the provider instance, its sessions, the open database) but keeps its files, a fresh state that
 * also deletes its data, one stopped clock both sides read, and a second caller with another UID.
 */
final class RobolectricDevice {
  static final String PACKAGE = "com.example.alerts";
  static final int SECOND_UID = 10_777;
  /** 2026-01-01T00:00:00Z. */
  static final long EPOCH_MS = 1_767_225_600_000L;

  final Application app = RuntimeEnvironment.getApplication();
  private final Supplier<? extends ContentProvider> newProvider;
  private long offsetMs;
  private ContentProvider provider;

  RobolectricDevice() {
    this(ParcelledAlertsProvider::new);
  }

  /**
   * The reference provider, receiving its extras as Binder would deliver them: written to a Parcel
   * and read back (a value that cannot be parcelled, or comes back as another type, shows here).
   */
  static final class ParcelledAlertsProvider extends AlertsProvider {
    @Override
    public Bundle call(String method, String arg, Bundle extras) {
      return super.call(method, arg, extras == null ? null : acrossBinder(extras));
    }

    static Bundle acrossBinder(Bundle extras) {
      Parcel parcel = Parcel.obtain();
      try {
        parcel.writeBundle(extras);
        parcel.setDataPosition(0);
        return parcel.readBundle(AlertsProvider.class.getClassLoader());
      } finally {
        parcel.recycle();
      }
    }
  }

  RobolectricDevice(Supplier<? extends ContentProvider> newProvider) {
    this.newProvider = newProvider;
    ProviderClock.use(this::now);
  }

  /**
   * The device's wall clock: stopped at a fixed instant, moved only by advance-clock steps. A slow
   * machine then cannot make a deadline pass (a deadline is 30 s after the call is made), and a run
   * reads the same times every time.
   */
  long now() {
    return EPOCH_MS + offsetMs;
  }

  /** Starts the provider's process: a new provider instance registered for its authority. */
  void start() {
    Context appContext = new ContextWrapper(app) {
      @Override
      public String getPackageName() {
        return PACKAGE;
      }

      @Override
      public String getOpPackageName() {
        return PACKAGE;
      }
    };
    ProviderInfo info = new ProviderInfo();
    info.authority = AlertsProvider.AUTHORITY;
    info.packageName = PACKAGE;
    info.name = AlertsProvider.class.getName();
    info.exported = true;
    provider = newProvider.get();
    provider.attachInfo(appContext, info);
    // The process starts before the first call: its database is open (and SQLite loaded) by then.
    AlertsDatabase.get(appContext).getWritableDatabase();
    ShadowContentResolver.registerProviderInternal(AlertsProvider.AUTHORITY, provider);
  }

  /** The process dies: memory is gone, files stay. */
  void kill() {
    if (provider != null) provider.shutdown();
    AlertsDatabase.closeInstance();
    start();
  }

  /** pm clear: the process dies and its data is deleted. */
  void clear() {
    if (provider != null) provider.shutdown();
    AlertsDatabase.closeInstance();
    app.deleteDatabase(AlertsDatabase.NAME);
    while (shadowOf(app).getNextStartedActivity() != null) {
      // forget screens a previous vector left open
    }
    start();
  }

  AndroidTransport transport() {
    return transport(new RobolectricUser(app));
  }

  AndroidTransport transport(AndroidTransport.User user) {
    start();
    return new AndroidTransport.Builder(app, null)
        .user(user)
        .kill(pkg -> kill())
        .freshState(pkg -> clear())
        .secondCaller(call -> {
          ShadowBinder.setCallingUid(SECOND_UID);
          try {
            return call.run();
          } finally {
            ShadowBinder.reset();
          }
        })
        .clock(ms -> offsetMs += ms)
        .wallClock(this::now)
        .fixtures(Collections.singleton("alerts"))
        .build();
  }
}
