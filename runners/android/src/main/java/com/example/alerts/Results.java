package com.example.alerts;

import android.os.Bundle;
import android.os.ParcelFileDescriptor;
import android.util.Log;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * A result on the wire (spec §4.2, §4.5): inline when {"kind":"inline","value":…} fits
 * max_inline_result_bytes; else, with large_results negotiated, a file result — media type, size
 * and SHA-256 in data, the bytes behind the read end of a pipe in {@code result_fd} (a writer thread
 * fills it and closes its end); without large_results, RESULT_TOO_LARGE.
 */
public final class Results {
  public static final int MAX_INLINE_RESULT_BYTES = 262_144;
  private static final String TAG = "CetpAlerts";

  private Results() {}

  public static Bundle render(Sessions.Session session, String requestId, JSONObject value) throws CetpError, JSONException {
    return render(session, requestId, value, MAX_INLINE_RESULT_BYTES);
  }

  static Bundle render(Sessions.Session session, String requestId, JSONObject value, int inlineLimit)
      throws CetpError, JSONException {
    JSONObject inline = new JSONObject().put("kind", "inline").put("value", value);
    String text = inline.toString();
    if (text.getBytes(StandardCharsets.UTF_8).length <= inlineLimit) return Replies.success(requestId, text);
    if (!session.has("large_results"))
      throw new CetpError("RESULT_TOO_LARGE", "The result is too large to return inline.",
          new JSONObject().put("inline_limit_bytes", inlineLimit), false);
    byte[] bytes = value.toString().getBytes(StandardCharsets.UTF_8);
    JSONObject file = new JSONObject().put("kind", "file").put("media_type", "application/json")
        .put("size_bytes", bytes.length).put("sha256", sha256(bytes));
    Bundle reply = Replies.success(requestId, file);
    reply.putParcelable("result_fd", pipe(bytes));
    return reply;
  }

  /** The read end of a pipe that a writer thread fills with {@code bytes} and then closes. */
  static ParcelFileDescriptor pipe(byte[] bytes) throws CetpError {
    ParcelFileDescriptor[] ends;
    try {
      ends = ParcelFileDescriptor.createReliablePipe();
    } catch (IOException e) {
      throw new CetpError("UNAVAILABLE", "The result file could not be created.");
    }
    ParcelFileDescriptor writeEnd = ends[1];
    new Thread(() -> {
      try (OutputStream out = new ParcelFileDescriptor.AutoCloseOutputStream(writeEnd)) {
        out.write(bytes);
      } catch (IOException e) {
        Log.w(TAG, "the reader closed the result pipe early", e);
      }
    }, "cetp-result-writer").start();
    return ends[0];
  }

  static String sha256(byte[] bytes) {
    try {
      StringBuilder hex = new StringBuilder();
      for (byte b : MessageDigest.getInstance("SHA-256").digest(bytes)) hex.append(String.format("%02x", b));
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
