package org.cetp.vectors.android;

import android.app.ActivityOptions;
import android.app.Instrumentation;
import android.app.PendingIntent;
import android.content.ContentProviderClient;
import android.content.Context;
import android.content.pm.ProviderInfo;
import android.os.Build;
import android.os.Bundle;
import android.os.ParcelFileDescriptor;
import android.os.RemoteException;
import android.os.SystemClock;
import android.system.ErrnoException;
import android.system.Os;
import android.system.OsConstants;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.cetp.vectors.Json;
import org.cetp.vectors.Transport;
import org.cetp.vectors.TransportException;
import org.cetp.vectors.UnsupportedAbility;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The runner on Android: the provider over an unstable ContentProviderClient, values converted by
 * their exact Java type, the confirmation PendingIntent sent and the user's answer given by a
 * {@link User}. It decides nothing: matching, captures, skips and verdicts are the JVM-tested
 * runner's (org.cetp.vectors.Runner). See docs/device-testing.md.
 *
 * <p>On a device (an instrumentation test of the caller app) the defaults use the shell through
 * {@code UiAutomation}: {@code pm clear} for a fresh provider state before each vector,
 * {@code am force-stop} for a kill, and {@link UiAutomationUser} for the confirmation screen. Under
 * Robolectric (runners/android/src/test) each of these is a hook given to the {@link Builder}.
 *
 * <p>Lacks by default: second-uid (give {@link Builder#secondCaller}), clock-control (give
 * {@link Builder#clock} a hook that moves the provider's clock), resign, consumer-harness.
 */
public final class AndroidTransport implements Transport {

  /** Gives the user's answer on the confirmation screen the PendingIntent opened. */
  public interface User {
    /** answer: approve | deny | back | never (leave the screen unanswered). */
    void answer(String answer, String providerPackage) throws TransportException;
  }

  /** Something done to the provider's app as a whole: a kill, or clearing its data. */
  public interface AppAction {
    void run(String providerPackage) throws TransportException;
  }

  /** Kills one process of the provider's app, by process name (a kill step naming one of two processes). */
  public interface ProcessKill {
    void run(String providerPackage, String processName) throws TransportException;
  }

  /** Makes one ContentProviderClient call as an app with another UID (ability second-uid). */
  public interface SecondCaller {
    Bundle call(Call call) throws RemoteException;
  }

  /** One ContentProviderClient call, to be made by a {@link SecondCaller}. */
  public interface Call {
    Bundle run() throws RemoteException;
  }

  public static final class Builder {
    private final Context context;
    private final Instrumentation instrumentation;
    private User user;
    private AppAction kill;
    private ProcessKill killProcess;
    private AppAction freshState;
    private SecondCaller second;
    private LongConsumer clock;
    private LongSupplier wallClock = System::currentTimeMillis;
    private long callTimeoutMs = 30_000;
    private Set<String> fixtures;

    /**
     * context: the caller app's (the instrumentation's target context). instrumentation: for the
     * shell and UI defaults; null if every hook is given (Robolectric).
     */
    public Builder(Context context, Instrumentation instrumentation) {
      this.context = context;
      this.instrumentation = instrumentation;
      if (instrumentation != null) {
        this.user = new UiAutomationUser(instrumentation.getUiAutomation());
        this.kill = pkg -> shell(instrumentation, "am force-stop " + pkg);
        this.killProcess = (pkg, name) -> killByName(instrumentation, pkg, name);
        this.freshState = pkg -> shell(instrumentation, "pm clear " + pkg);
      }
    }

    public Builder user(User user) {
      this.user = user;
      return this;
    }

    /** Kills the provider's process (default: am force-stop). */
    public Builder kill(AppAction kill) {
      this.kill = kill;
      return this;
    }

    /**
     * Kills one process of an app whose provider runs in a process of its own (android:process), so
     * that a kill step takes the process it names and leaves the other (default: {@code pidof} the
     * process, then {@code run-as <package> kill -9 <pid>}, which needs a debuggable provider app).
     * Without it such a kill step is skipped (process-kill); an app with one process needs only
     * {@link #kill}.
     */
    public Builder killProcess(ProcessKill killProcess) {
      this.killProcess = killProcess;
      return this;
    }

    /** Gives the provider a fresh state before each vector (default: pm clear; a no-op is allowed). */
    public Builder freshState(AppAction freshState) {
      this.freshState = freshState;
      return this;
    }

    /** Makes calls as a second app (enables second-uid). */
    public Builder secondCaller(SecondCaller second) {
      this.second = second;
      return this;
    }

    /** A hook that moves the device clock the provider reads by ms (enables clock-control). */
    public Builder clock(LongConsumer clock) {
      this.clock = clock;
      return this;
    }

    /** The wall clock deadlines ({@code now_plus_ms}) are computed from: the provider's clock. */
    public Builder wallClock(LongSupplier wallClock) {
      this.wallClock = wallClock;
      return this;
    }

    /** The corpus fixtures installed on this device (default: all); vectors of others are skipped. */
    public Builder fixtures(Set<String> names) {
      this.fixtures = names;
      return this;
    }

    public Builder callTimeoutMs(long ms) {
      this.callTimeoutMs = ms;
      return this;
    }

    public AndroidTransport build() {
      return new AndroidTransport(this);
    }
  }

  private static final Set<String> VALUE_TYPES = new HashSet<>(Arrays.asList(
      "int", "long", "boolean", "double", "float", "string", "bytes", "string[]", "int[]", "long[]", "bundle", "null"));
  /** Polls shorter than this just wait; longer waits need the clock hook. */
  private static final long MAX_REAL_WAIT_MS = 10_000;

  private final Builder b;
  private final Map<String, Object> handles = new HashMap<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private Fixture fixture;
  private ContentProviderClient client;
  private int serial = 0;

  private AndroidTransport(Builder b) {
    this.b = b;
  }

  @Override
  public Capabilities capabilities() {
    Set<String> abilities = new HashSet<>(Arrays.asList("core", "async_operations", "cancellation", "large_results"));
    if (b.user != null) abilities.add("user-action");
    if (b.kill != null) abilities.add("process-kill");
    if (b.second != null) abilities.add("second-uid");
    if (b.clock != null) abilities.add("clock-control");
    return new Capabilities(abilities, VALUE_TYPES, b.fixtures);
  }

  @Override
  public Start begin(String vectorId, Fixture fixture, List<String> fresh, String seed) throws TransportException {
    dropClient();
    handles.clear();
    this.fixture = fixture;
    if (b.freshState != null) b.freshState.run(fixture.packageName);
    Map<String, String> bound = new LinkedHashMap<>();
    for (String name : fresh) bound.put(name, UUID.randomUUID().toString());
    return new Start(String.valueOf(android.os.Process.myUid()), bound);
  }

  private synchronized ContentProviderClient client() throws TransportException {
    if (client == null) client = b.context.getContentResolver().acquireUnstableContentProviderClient(fixture.authority);
    if (client == null) throw new TransportException("cannot acquire " + fixture.authority + " (is " + fixture.packageName + " installed?)");
    return client;
  }

  private synchronized void dropClient() {
    if (client != null) client.close();
    client = null;
  }

  @Override
  public JSONObject call(String caller, String method, String arg, JSONObject extras) throws TransportException {
    if ("second".equals(caller) && b.second == null) throw new UnsupportedAbility("second-uid");
    try {
      ContentProviderClient c = client();
      Bundle sent = extras == null ? null : toBundle(extras, b.wallClock.getAsLong());
      Bundle reply = "second".equals(caller) ? b.second.call(() -> c.call(method, arg, sent)) : c.call(method, arg, sent);
      return fromBundle(reply);
    } catch (RemoteException e) {
      dropClient();
      throw new TransportException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    } catch (JSONException e) {
      throw new TransportException("bad extras: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      // A provider exception crosses Binder as a RuntimeException subtype (SecurityException, …).
      throw new TransportException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public List<JSONObject> parallel(int count, String caller, String method, String arg, JSONObject extras)
      throws TransportException {
    List<Future<JSONObject>> futures = new ArrayList<>();
    List<JSONObject> replies = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < count; i++)
      futures.add(pool.submit(() -> {
        JSONObject r = call(caller, method, arg, extras);
        replies.add(r);
        return r;
      }));
    for (Future<JSONObject> f : futures) {
      try {
        f.get(b.callTimeoutMs, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof TransportException) throw (TransportException) c;
        throw new TransportException(String.valueOf(c), c);
      } catch (java.util.concurrent.TimeoutException | InterruptedException e) {
        throw new TransportException("a parallel call was not answered within " + b.callTimeoutMs + " ms", e);
      }
    }
    return new ArrayList<>(replies);
  }

  @Override
  public void userAction(String answer, String handle) throws TransportException {
    Object pi = handles.get(handle);
    if (!(pi instanceof PendingIntent)) throw new TransportException("no PendingIntent with handle " + handle);
    if (b.user == null) throw new UnsupportedAbility("user-action");
    Bundle options = null;
    if (Build.VERSION.SDK_INT >= 34)
      options = ActivityOptions.makeBasic()
          .setPendingIntentBackgroundActivityStartMode(ActivityOptions.MODE_BACKGROUND_ACTIVITY_START_ALLOWED)
          .toBundle();
    try {
      ((PendingIntent) pi).send(b.context, 0, null, null, null, null, options);
    } catch (PendingIntent.CanceledException e) {
      throw new TransportException("the PendingIntent was cancelled", e);
    }
    b.user.answer(answer, fixture.packageName);
  }

  @Override
  public void killProvider() throws TransportException {
    killProvider("main");
  }

  /**
   * A kill step: "main" the app's main process (named after its package), "provider" the process
   * its provider runs in (ProviderInfo.processName: its android:process, else the main process). For
   * an app with one process both are the {@link Builder#kill} hook (am force-stop); for a provider in
   * a process of its own each is that one process ({@link Builder#killProcess}) — a force-stop would
   * take both.
   */
  @Override
  public void killProvider(String process) throws TransportException {
    if (b.kill == null) throw new UnsupportedAbility("process-kill");
    String providerProcess = providerProcess();
    String victim = "provider".equals(process) ? providerProcess : fixture.packageName;
    if (providerProcess.equals(fixture.packageName)) {
      dropClient();
      b.kill.run(fixture.packageName);
      return;
    }
    if (b.killProcess == null) throw new UnsupportedAbility("process-kill");
    if (victim.equals(providerProcess)) dropClient();
    b.killProcess.run(fixture.packageName, victim);
  }

  /** The process the fixture's provider runs in, as the package manager declares it. */
  private String providerProcess() {
    ProviderInfo info = b.context.getPackageManager().resolveContentProvider(fixture.authority, 0);
    return info == null || info.processName == null || info.processName.isEmpty() ? fixture.packageName : info.processName;
  }

  /** pidof the process, then kill -9 as the app (run-as: a debuggable app); nothing if it is not running. */
  static void killByName(Instrumentation instrumentation, String pkg, String processName) throws TransportException {
    String pids = shellOutput(instrumentation, "pidof " + processName).trim();
    for (String pid : pids.isEmpty() ? new String[0] : pids.split("\\s+")) {
      if (!pid.matches("\\d+")) throw new TransportException("pidof " + processName + " answered " + pids);
      shell(instrumentation, "run-as " + pkg + " kill -9 " + pid);
    }
  }

  /** Runs a shell command through UiAutomation (as the shell user) and waits for it to finish. */
  static void shell(Instrumentation instrumentation, String command) throws TransportException {
    shellOutput(instrumentation, command);
  }

  /** {@link #shell}, answering what the command printed. */
  static String shellOutput(Instrumentation instrumentation, String command) throws TransportException {
    ParcelFileDescriptor out = instrumentation.getUiAutomation().executeShellCommand(command);
    try (InputStream in = new ParcelFileDescriptor.AutoCloseInputStream(out)) {
      return new String(readAll(in), java.nio.charset.StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new TransportException(command + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void advanceClock(long ms) throws TransportException {
    if (b.clock != null) b.clock.accept(ms);
    else if (ms <= MAX_REAL_WAIT_MS) SystemClock.sleep(ms);
    else throw new UnsupportedAbility("clock-control");
  }

  @Override
  public byte[] readFd(String handle) throws TransportException {
    Object pfd = handles.get(handle);
    if (!(pfd instanceof ParcelFileDescriptor)) throw new TransportException("no file descriptor with handle " + handle);
    try (InputStream in = new ParcelFileDescriptor.AutoCloseInputStream((ParcelFileDescriptor) pfd)) {
      return readAll(in);
    } catch (IOException e) {
      throw new TransportException("reading the file descriptor failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void end() {
    dropClient();
    handles.clear();
  }

  @Override
  public void close() {
    end();
    pool.shutdownNow();
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[1 << 16];
    for (int n = in.read(buf); n >= 0; n = in.read(buf)) out.write(buf, 0, n);
    return out.toByteArray();
  }

  // ---- values: one switch per direction over the Bundle types ----

  /** Tagged extras (variables resolved) → a Bundle, each value with the putX its type names. */
  static Bundle toBundle(JSONObject extras, long nowMs) throws JSONException {
    Bundle bundle = new Bundle();
    for (String key : Json.keys(extras)) {
      JSONObject v = extras.getJSONObject(key);
      String type = v.getString("type");
      switch (type) {
        case "int": bundle.putInt(key, v.getInt("value")); break;
        case "long":
          bundle.putLong(key, v.has("now_plus_ms") ? nowMs + v.getLong("now_plus_ms") : Long.parseLong(v.getString("value")));
          break;
        case "boolean": bundle.putBoolean(key, v.getBoolean("value")); break;
        case "double": bundle.putDouble(key, number(v.get("value"))); break;
        case "float": bundle.putFloat(key, (float) number(v.get("value"))); break;
        case "string": bundle.putString(key, v.getString("value")); break;
        case "bytes": bundle.putByteArray(key, Base64.getDecoder().decode(v.getString("value"))); break;
        case "string[]": {
          JSONArray a = v.getJSONArray("value");
          String[] out = new String[a.length()];
          for (int i = 0; i < out.length; i++) out[i] = a.getString(i);
          bundle.putStringArray(key, out);
          break;
        }
        case "int[]": {
          JSONArray a = v.getJSONArray("value");
          int[] out = new int[a.length()];
          for (int i = 0; i < out.length; i++) out[i] = a.getInt(i);
          bundle.putIntArray(key, out);
          break;
        }
        case "long[]": {
          JSONArray a = v.getJSONArray("value");
          long[] out = new long[a.length()];
          for (int i = 0; i < out.length; i++) out[i] = Long.parseLong(a.getString(i));
          bundle.putLongArray(key, out);
          break;
        }
        case "bundle": bundle.putBundle(key, toBundle(v.getJSONObject("value"), nowMs)); break;
        case "null": bundle.putString(key, null); break;
        default: throw new JSONException("cannot send a " + type + " value");
      }
    }
    return bundle;
  }

  private static double number(Object v) {
    if (v instanceof Number) return ((Number) v).doubleValue();
    switch (String.valueOf(v)) {
      case "NaN": return Double.NaN;
      case "Infinity": return Double.POSITIVE_INFINITY;
      default: return Double.NEGATIVE_INFINITY;
    }
  }

  private static JSONObject tagged(String type, Object value) throws JSONException {
    return new JSONObject().put("type", type).put("value", value);
  }

  private static Object floating(double d) {
    if (Double.isNaN(d)) return "NaN";
    if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
    return d;
  }

  /** A reply Bundle → tagged form, by each value's exact Java type (a null Bundle is {"type":"null"}). */
  @SuppressWarnings("deprecation") // Bundle.get(String): the one untyped getter, needed to see the exact type
  JSONObject fromBundle(Bundle bundle) throws JSONException {
    if (bundle == null) return new JSONObject().put("type", "null");
    JSONObject values = new JSONObject();
    for (String key : bundle.keySet()) values.put(key, value(bundle.get(key)));
    return tagged("bundle", values);
  }

  private JSONObject value(Object v) throws JSONException {
    if (v == null) return new JSONObject().put("type", "null");
    if (v instanceof Integer) return tagged("int", v);
    if (v instanceof Long) return tagged("long", String.valueOf(v));
    if (v instanceof Boolean) return tagged("boolean", v);
    if (v instanceof Double) return tagged("double", floating((Double) v));
    if (v instanceof Float) return tagged("float", floating((Float) v));
    if (v instanceof String) return tagged("string", v);
    if (v instanceof byte[]) return tagged("bytes", Base64.getEncoder().encodeToString((byte[]) v));
    if (v instanceof String[]) return tagged("string[]", new JSONArray(Arrays.asList((String[]) v)));
    if (v instanceof int[]) {
      JSONArray a = new JSONArray();
      for (int x : (int[]) v) a.put(x);
      return tagged("int[]", a);
    }
    if (v instanceof long[]) {
      JSONArray a = new JSONArray();
      for (long x : (long[]) v) a.put(String.valueOf(x));
      return tagged("long[]", a);
    }
    if (v instanceof Bundle) return fromBundle((Bundle) v);
    if (v instanceof PendingIntent) {
      PendingIntent pi = (PendingIntent) v;
      String handle = "pi:" + (++serial);
      handles.put(handle, pi);
      return new JSONObject()
          .put("type", "pending_intent")
          .put("creator", fixture.packageName.equals(pi.getCreatorPackage()) ? "provider" : "other")
          .put("immutable", pi.isImmutable())
          .put("handle", handle);
    }
    if (v instanceof ParcelFileDescriptor) {
      ParcelFileDescriptor pfd = (ParcelFileDescriptor) v;
      String handle = "fd:" + (++serial);
      handles.put(handle, pfd);
      boolean readOnly;
      try {
        readOnly = (Os.fcntlInt(pfd.getFileDescriptor(), OsConstants.F_GETFL, 0) & OsConstants.O_ACCMODE) == OsConstants.O_RDONLY;
      } catch (ErrnoException | RuntimeException e) {
        readOnly = false; // not known: the runner then reports read_only=false
      }
      return new JSONObject().put("type", "fd").put("read_only", readOnly).put("handle", handle);
    }
    return new JSONObject().put("type", "other").put("class", v.getClass().getName());
  }
}
