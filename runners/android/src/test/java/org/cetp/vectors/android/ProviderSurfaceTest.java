package org.cetp.vectors.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import android.content.ContentValues;
import android.database.sqlite.SQLiteDatabase;
import android.os.Process;
import com.example.alerts.AlertsDatabase;
import com.example.alerts.AlertsProvider;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Collections;
import java.util.UUID;
import org.cetp.vectors.Transport;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.robolectric.RobolectricTestRunner;
import org.robolectric.annotation.Config;

/**
 * The parts of the Java provider the alerts vectors do not drive (their async and large-results
 * vectors use the payments fixture): an operation started by execute_tool when async_operations is
 * negotiated, polled with get_operation, refused to others and to cancel once finished; and a
 * result larger than max_inline_result_bytes sent as a file behind result_fd, read to its end
 * through AndroidTransport and checked against the size and SHA-256 the reply states.
 */
@RunWith(RobolectricTestRunner.class)
@Config(sdk = 35)
public class ProviderSurfaceTest {
  private final RobolectricDevice device = new RobolectricDevice();

  private static JSONObject str(String v) throws Exception {
    return new JSONObject().put("type", "string").put("value", v);
  }

  private static JSONObject envelope(String session, String requestId) throws Exception {
    return new JSONObject()
        .put("protocol_version", new JSONObject().put("type", "int").put("value", 2))
        .put("session_token", str(session))
        .put("request_id", str(requestId))
        .put("deadline_at_ms", new JSONObject().put("type", "long").put("now_plus_ms", 30_000));
  }

  private static String text(JSONObject reply, String key) throws Exception {
    return reply.getJSONObject("value").getJSONObject(key).getString("value");
  }

  private String negotiate(AndroidTransport t) throws Exception {
    JSONObject reply = t.call("primary", "negotiate", null, new JSONObject()
        .put("consumer_versions", new JSONObject().put("type", "int[]").put("value", new JSONArray().put(2)))
        .put("consumer_capabilities", str("[\"async_operations\",\"cancellation\",\"large_results\"]")));
    return new JSONObject(text(reply, "data")).getString("session_token");
  }

  private AndroidTransport started() throws Exception {
    AndroidTransport t = device.transport();
    t.begin("surface", new Transport.Fixture("alerts", RobolectricDevice.PACKAGE, AlertsProvider.AUTHORITY),
        Collections.emptyList(), "0");
    return t;
  }

  @Test
  public void aWriteBecomesAnOperationWhenAsyncOperationsIsNegotiated() throws Exception {
    try (AndroidTransport t = started()) {
      SQLiteDatabase db = AlertsDatabase.get(device.app).getWritableDatabase();
      AlertsDatabase.grant(db, Process.myUid(), "alerts.write", device.now() + 3_600_000);
      String session = negotiate(t);
      String rid = UUID.randomUUID().toString();
      JSONObject accepted = t.call("primary", "execute_tool", null, envelope(session, rid)
          .put("tool_name", str("create_alert")).put("args", str("{\"symbol\":\"AAPL\",\"price\":190}")));
      assertEquals("accepted", text(accepted, "status"));
      String operation = new JSONObject(text(accepted, "data")).getString("operation_id");
      JSONObject ask = envelope(session, rid).put("operation_id", str(operation));
      JSONObject state = null;
      for (int i = 0; i < 100; i++) {
        state = new JSONObject(text(t.call("primary", "get_operation", null, ask), "data"));
        if (!state.getString("state").equals("queued") && !state.getString("state").equals("running")) break;
        Thread.sleep(50);
      }
      assertEquals("succeeded", state.getString("state"));
      assertEquals("ALRT-1", state.getJSONObject("result").getJSONObject("value").getString("alert_id"));
      // Asked under another request_id: not this caller's operation for that request.
      JSONObject other = envelope(session, UUID.randomUUID().toString()).put("operation_id", str(operation));
      assertEquals("INVALID_REQUEST", text(t.call("primary", "get_operation", null, other), "error_code"));
      // Finished: it can no longer be cancelled.
      assertEquals("CONFLICT", text(t.call("primary", "cancel_operation", null, ask), "error_code"));
      // The same request again: the same operation, not a second alert.
      JSONObject again = t.call("primary", "execute_tool", null, envelope(session, rid)
          .put("tool_name", str("create_alert")).put("args", str("{\"symbol\":\"AAPL\",\"price\":190}")));
      assertEquals("{\"kind\":\"inline\",\"value\":{\"alert_id\":\"ALRT-1\"}}", text(again, "data"));
    }
  }

  @Test
  public void aLargeResultIsAFileBehindResultFd() throws Exception {
    try (AndroidTransport t = started()) {
      SQLiteDatabase db = AlertsDatabase.get(device.app).getWritableDatabase();
      db.beginTransaction();
      for (int i = 1; i <= 6_000; i++) {
        ContentValues v = new ContentValues();
        v.put("alert_id", "ALRT-" + i);
        v.put("seq", i);
        v.put("symbol", "AAPL");
        v.put("price", 100 + i);
        v.put("owner_uid", Process.myUid());
        db.insertOrThrow("alerts", null, v);
      }
      db.setTransactionSuccessful();
      db.endTransaction();
      String session = negotiate(t);
      JSONObject reply = t.call("primary", "execute_tool", null, envelope(session, UUID.randomUUID().toString())
          .put("tool_name", str("list_alerts")).put("args", str("{}")));
      JSONObject data = new JSONObject(text(reply, "data"));
      assertEquals("file", data.getString("kind"));
      assertEquals("application/json", data.getString("media_type"));
      String handle = reply.getJSONObject("value").getJSONObject("result_fd").getString("handle");
      byte[] bytes = t.readFd(handle);
      assertEquals(data.getInt("size_bytes"), bytes.length);
      assertTrue("larger than the inline limit", bytes.length > 262_144);
      StringBuilder hex = new StringBuilder();
      for (byte b : MessageDigest.getInstance("SHA-256").digest(bytes)) hex.append(String.format("%02x", b));
      assertEquals(data.getString("sha256"), hex.toString());
      assertEquals(6_000, new JSONObject(new String(bytes, StandardCharsets.UTF_8)).getJSONArray("alerts").length());
    }
  }
}
