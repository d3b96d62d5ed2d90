package com.example.alerts;

import android.app.PendingIntent;
import android.content.ContentValues;
import android.content.Context;
import android.content.Intent;
import android.database.sqlite.SQLiteDatabase;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.json.JSONArray;

/**
 * Asking the user (spec §4.3): a confirmation bound to the caller's UID, its request_id, the tool
 * and the args digest, with a single-use resume token that expires, and the screen that asks —
 * {@link ConfirmActivity} behind an explicit, immutable PendingIntent created by this app.
 */
public final class Confirmations {
  public static final long TOKEN_TTL_MS = 600_000;
  /** How long a scope grant the user gave lasts (§7.1): then the user is asked again. */
  public static final long GRANT_TTL_MS = 30L * 24 * 3_600_000;
  public static final String EXTRA_CONFIRMATION = "com.example.alerts.extra.CONFIRMATION";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Confirmations() {}

  /** A new confirmation of one request; returns it as stored. */
  public static AlertsDatabase.Confirmation open(SQLiteDatabase tx, int uid, String requestId, String tool,
      String digest, String kind, List<String> scopes, String summary) {
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    String id = UUID.randomUUID().toString();
    ContentValues v = new ContentValues();
    v.put("id", id);
    v.put("token", Base64.getUrlEncoder().withoutPadding().encodeToString(secret));
    v.put("uid", uid);
    v.put("request_id", requestId);
    v.put("tool", tool);
    v.put("args_digest", digest);
    v.put("kind", kind);
    v.put("scopes", new JSONArray(scopes).toString());
    v.put("summary", summary);
    v.put("expires_at", ProviderClock.now() + TOKEN_TTL_MS);
    AlertsDatabase.insertConfirmation(tx, v);
    return AlertsDatabase.confirmationById(tx, id);
  }

  /** The screen that asks about confirmation {@code id}: explicit, immutable, only ever ours. */
  public static PendingIntent screen(Context context, String id) {
    Intent intent = new Intent(context, ConfirmActivity.class)
        .putExtra(EXTRA_CONFIRMATION, id)
        .addFlags(Intent.FLAG_ACTIVITY_NEW_TASK);
    intent.setIdentifier(id); // one PendingIntent per confirmation
    return PendingIntent.getActivity(context, 0, intent, PendingIntent.FLAG_IMMUTABLE);
  }
}
