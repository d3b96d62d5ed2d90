package org.cetp.vectors.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;
import static org.robolectric.Shadows.shadowOf;

import android.app.Application;
import android.content.pm.ApplicationInfo;
import android.content.pm.PackageInfo;
import android.content.pm.ProviderInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.cetp.vectors.Transport;
import org.cetp.vectors.UnsupportedAbility;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;

/**
 * A vector's kill step names a process (src/vectors/kill-target.ts): "main", the app's main process
 * (the default, what a kill always meant), or "provider", the process its provider runs in, read
 * from the provider's ProviderInfo.processName. For an app with one process both are the kill hook
 * (am force-stop on a device); for a provider in android:process=":cetp" each kills that one process
 * (a force-stop would take both). The old transport force-stopped the package for every kill step.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35)
public class AndroidTransportKillTest {
  static final String PKG = "org.cetp.test.split";
  static final String AUTHORITY = "org.cetp.test.split.cetp";

  private final Application app = RuntimeEnvironment.getApplication();
  private final List<String> killed = new ArrayList<>();

  /** A transport for an installed app whose provider runs in processName. */
  private AndroidTransport transport(String processName, boolean processHook) throws Exception {
    PackageInfo pkg = new PackageInfo();
    pkg.packageName = PKG;
    pkg.applicationInfo = new ApplicationInfo();
    pkg.applicationInfo.packageName = PKG;
    ProviderInfo info = new ProviderInfo();
    info.authority = AUTHORITY;
    info.packageName = PKG;
    info.name = PKG + ".CetpProvider";
    info.processName = processName;
    info.exported = true;
    info.applicationInfo = pkg.applicationInfo;
    pkg.providers = new ProviderInfo[] {info};
    shadowOf(app.getPackageManager()).installPackage(pkg);
    AndroidTransport.Builder b = new AndroidTransport.Builder(app, null).kill(p -> killed.add("force-stop " + p));
    if (processHook) b.killProcess((p, name) -> killed.add("kill " + name + " of " + p));
    AndroidTransport t = b.build();
    t.begin("v", new Transport.Fixture("split", PKG, AUTHORITY), Collections.emptyList(), "0");
    return t;
  }

  @Test
  public void oneProcessEveryKillIsTheAppsKill() throws Exception {
    AndroidTransport t = transport(PKG, true);
    t.killProvider("provider");
    t.killProvider("main");
    t.killProvider();
    assertEquals(Arrays.asList("force-stop " + PKG, "force-stop " + PKG, "force-stop " + PKG), killed);
  }

  @Test
  public void aProviderInItsOwnProcessEachKillTakesTheProcessItNames() throws Exception {
    AndroidTransport t = transport(PKG + ":cetp", true);
    t.killProvider("provider");
    t.killProvider("main");
    t.killProvider();
    assertEquals(Arrays.asList("kill " + PKG + ":cetp of " + PKG, "kill " + PKG + " of " + PKG, "kill " + PKG + " of " + PKG), killed);
  }

  @Test
  public void withoutAProcessHookSuchAKillIsSkippedNotAForceStop() throws Exception {
    AndroidTransport t = transport(PKG + ":cetp", false);
    try {
      t.killProvider("provider");
      fail("killed " + killed);
    } catch (UnsupportedAbility e) {
      assertEquals(Collections.emptyList(), killed);
    }
  }
}
