package org.cetp.vectors.android;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import android.content.ContentProvider;
import android.content.ContentValues;
import android.content.pm.ProviderInfo;
import android.database.Cursor;
import android.net.Uri;
import android.os.Bundle;
import java.util.LinkedHashMap;
import java.util.Map;
import org.cetp.vectors.Transport;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.annotation.Config;
import org.robolectric.shadows.ShadowContentResolver;

/**
 * AndroidTransport puts each tagged value in the Bundle with the putX its type names, and reads
 * each reply value back by its exact Java type: checked on the real Bundle, through a real
 * ContentResolver call to a provider that records what it received. A transport that sent a long
 * as an Int, an int[] as an ArrayList, or read an Integer back as a long fails here.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35)
public class AndroidTransportBundleTest {
  static final String AUTHORITY = "org.cetp.test.echo";

  /** Records the extras of the last call, by key: the value's exact Java class and the value. */
  public static final class EchoProvider extends ContentProvider {
    static final Map<String, Object> received = new LinkedHashMap<>();

    @Override
    @SuppressWarnings("deprecation") // Bundle.get: the exact type of each value
    public Bundle call(String method, String arg, Bundle extras) {
      received.clear();
      for (String key : extras.keySet()) received.put(key, extras.get(key));
      Bundle reply = new Bundle();
      reply.putInt("i", 7);
      reply.putLong("l", 1L << 40);
      reply.putBoolean("b", true);
      reply.putDouble("d", 0.5);
      reply.putFloat("f", 1.5f);
      reply.putString("s", "x");
      reply.putByteArray("y", new byte[] {1, 2});
      reply.putStringArray("sa", new String[] {"a"});
      reply.putIntArray("ia", new int[] {1, 2});
      reply.putLongArray("la", new long[] {3L});
      Bundle inner = new Bundle();
      inner.putInt("n", 1);
      reply.putBundle("bundle", inner);
      reply.putString("null", null);
      return reply;
    }

    @Override public boolean onCreate() { return true; }
    @Override public Cursor query(Uri u, String[] p, String s, String[] a, String o) { return null; }
    @Override public String getType(Uri u) { return null; }
    @Override public Uri insert(Uri u, ContentValues v) { return null; }
    @Override public int delete(Uri u, String s, String[] a) { return 0; }
    @Override public int update(Uri u, ContentValues v, String s, String[] a) { return 0; }
  }

  private AndroidTransport transport;

  @Before
  public void setUp() throws Exception {
    EchoProvider provider = new EchoProvider();
    ProviderInfo info = new ProviderInfo();
    info.authority = AUTHORITY;
    info.exported = true;
    provider.attachInfo(RuntimeEnvironment.getApplication(), info);
    ShadowContentResolver.registerProviderInternal(AUTHORITY, provider);
    transport = new AndroidTransport.Builder(RuntimeEnvironment.getApplication(), null).wallClock(() -> 1_000L).build();
    transport.begin("t", new Transport.Fixture("echo", "org.cetp.test", AUTHORITY), java.util.Collections.emptyList(), "0");
  }

  private static JSONObject tagged(String type, Object value) throws Exception {
    return new JSONObject().put("type", type).put("value", value);
  }

  @Test
  public void sendsEachTypeWithItsOwnPutter() throws Exception {
    JSONObject extras = new JSONObject()
        .put("int", tagged("int", 2))
        .put("long", tagged("long", "2"))
        .put("deadline", new JSONObject().put("type", "long").put("now_plus_ms", 500))
        .put("boolean", tagged("boolean", true))
        .put("double", tagged("double", 2))
        .put("float", tagged("float", "NaN"))
        .put("string", tagged("string", "s"))
        .put("bytes", tagged("bytes", "AQI="))
        .put("string[]", tagged("string[]", new JSONArray().put("a")))
        .put("int[]", tagged("int[]", new JSONArray().put(2).put(1)))
        .put("long[]", tagged("long[]", new JSONArray().put("9007199254740993")))
        .put("bundle", tagged("bundle", new JSONObject().put("n", tagged("int", 1))))
        .put("null", new JSONObject().put("type", "null"));
    transport.call("primary", "echo", null, extras);
    Map<String, Object> got = EchoProvider.received;
    assertEquals(Integer.class, got.get("int").getClass());
    assertEquals(Long.class, got.get("long").getClass());
    assertEquals(2L, got.get("long"));
    assertEquals(Long.class, got.get("deadline").getClass());
    assertEquals(1_500L, got.get("deadline"));
    assertEquals(Boolean.class, got.get("boolean").getClass());
    assertEquals(Double.class, got.get("double").getClass());
    assertEquals(Float.class, got.get("float").getClass());
    assertEquals(String.class, got.get("string").getClass());
    assertArrayEquals(new byte[] {1, 2}, (byte[]) got.get("bytes"));
    assertArrayEquals(new String[] {"a"}, (String[]) got.get("string[]"));
    assertArrayEquals(new int[] {2, 1}, (int[]) got.get("int[]"));
    assertArrayEquals(new long[] {9007199254740993L}, (long[]) got.get("long[]"));
    assertEquals(Integer.class, ((Bundle) got.get("bundle")).getInt("n", -1) == 1 ? Integer.class : null);
    assertEquals(true, got.containsKey("null"));
    assertEquals(null, got.get("null"));
  }

  @Test
  public void readsEachReplyValueByItsExactType() throws Exception {
    JSONObject reply = transport.call("primary", "echo", null, new JSONObject());
    assertEquals("bundle", reply.getString("type"));
    JSONObject v = reply.getJSONObject("value");
    assertEquals("int", v.getJSONObject("i").getString("type"));
    assertEquals("long", v.getJSONObject("l").getString("type"));
    assertEquals(String.valueOf(1L << 40), v.getJSONObject("l").getString("value"));
    assertEquals("boolean", v.getJSONObject("b").getString("type"));
    assertEquals("double", v.getJSONObject("d").getString("type"));
    assertEquals("float", v.getJSONObject("f").getString("type"));
    assertEquals("string", v.getJSONObject("s").getString("type"));
    assertEquals("bytes", v.getJSONObject("y").getString("type"));
    assertEquals("string[]", v.getJSONObject("sa").getString("type"));
    assertEquals("int[]", v.getJSONObject("ia").getString("type"));
    assertEquals("long[]", v.getJSONObject("la").getString("type"));
    assertEquals("bundle", v.getJSONObject("bundle").getString("type"));
    assertEquals("int", v.getJSONObject("bundle").getJSONObject("value").getJSONObject("n").getString("type"));
    assertEquals("null", v.getJSONObject("null").getString("type"));
  }
}
