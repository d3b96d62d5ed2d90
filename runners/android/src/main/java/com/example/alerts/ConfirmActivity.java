package com.example.alerts;

import android.app.Activity;
import android.database.sqlite.SQLiteDatabase;
import android.os.Bundle;
import android.view.View;
import android.widget.Button;
import android.widget.LinearLayout;
import android.widget.TextView;
import org.json.JSONArray;
import org.json.JSONException;

/**
 * The confirmation screen (spec §4.3, §7.2): what the caller asks, and Approve / Deny. Only this app
 * can open it (not exported; reached through the immutable PendingIntent of {@link Confirmations}).
 * Approving a grant_scopes confirmation grants its scopes to the caller's UID for
 * {@link Confirmations#GRANT_TTL_MS}; leaving the screen (Back) without an answer cancels.
 *
 * <p>The buttons carry the tags {@code cetp_approve} / {@code cetp_deny} (a Robolectric test finds
 * them so). In an app with resources, give them the ids {@code R.id.cetp_approve} /
 * {@code R.id.cetp_deny} too: the device runner's UiAutomationUser clicks them by resource id.
 */
public final class ConfirmActivity extends Activity {
  public static final String APPROVE = "cetp_approve";
  public static final String DENY = "cetp_deny";
  private String id;
  private boolean answered;

  @Override
  protected void onCreate(Bundle savedInstanceState) {
    super.onCreate(savedInstanceState);
    id = getIntent().getStringExtra(Confirmations.EXTRA_CONFIRMATION);
    AlertsDatabase.Confirmation c = id == null ? null
        : AlertsDatabase.confirmationById(AlertsDatabase.get(this).getReadableDatabase(), id);
    // An expired confirmation is still shown: approving it changes nothing (settle checks expiry),
    // and the caller's resume is refused.
    if (c == null || c.answer != null || c.consumed) {
      answered = true; // nothing to ask any more
      finish();
      return;
    }
    TextView what = new TextView(this);
    what.setText(c.kind.equals("grant_scopes") ? "Allow this app to " + c.summary + "?" : c.summary + "?");
    LinearLayout layout = new LinearLayout(this);
    layout.setOrientation(LinearLayout.VERTICAL);
    layout.addView(what);
    layout.addView(button("Approve", APPROVE, v -> settle("approved")));
    layout.addView(button("Deny", DENY, v -> settle("denied")));
    setContentView(layout);
  }

  private Button button(String text, String tag, View.OnClickListener onClick) {
    Button b = new Button(this);
    b.setText(text);
    b.setTag(tag);
    b.setId(View.generateViewId());
    b.setOnClickListener(onClick);
    return b;
  }

  /** Records the answer (and an approved grant) in one transaction, then closes the screen. */
  private void settle(String answer) {
    answered = true;
    SQLiteDatabase db = AlertsDatabase.get(this).getWritableDatabase();
    db.beginTransaction();
    try {
      AlertsDatabase.Confirmation c = AlertsDatabase.confirmationById(db, id);
      if (c != null && !c.expired() && AlertsDatabase.answer(db, id, answer)
          && answer.equals("approved") && c.kind.equals("grant_scopes")) {
        JSONArray scopes = new JSONArray(c.scopes);
        for (int i = 0; i < scopes.length(); i++)
          AlertsDatabase.grant(db, c.uid, scopes.getString(i), ProviderClock.now() + Confirmations.GRANT_TTL_MS);
      }
      db.setTransactionSuccessful();
    } catch (JSONException e) {
      throw new IllegalStateException("stored scopes are not JSON", e);
    } finally {
      db.endTransaction();
    }
    finish();
  }

  @Override
  protected void onDestroy() {
    // Back, or the screen closed some other way without an answer: the user did not approve.
    if (!answered && isFinishing()) AlertsDatabase.answer(AlertsDatabase.get(this).getWritableDatabase(), id, "dismissed");
    super.onDestroy();
  }
}
