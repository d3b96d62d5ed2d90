package com.example.alerts;

import org.json.JSONObject;

/**
 * A CETP error answer (spec §5), thrown from deep inside a call and turned into the error Bundle by
 * {@link Replies#error}. Never carries an exception's own text: messages are written for users.
 */
public final class CetpError extends Exception {
  private static final long serialVersionUID = 1L;

  public final String code;
  public final JSONObject details;
  /** null: the code's default (Replies.retryable). */
  public final Boolean retryable;

  public CetpError(String code, String message) {
    this(code, message, null, null);
  }

  public CetpError(String code, String message, JSONObject details, Boolean retryable) {
    super(message);
    this.code = code;
    this.details = details;
    this.retryable = retryable;
  }

  /** INVALID_REQUEST: a request_id, resume token or envelope that cannot be honoured. */
  public static CetpError invalidRequest(String message) {
    return new CetpError("INVALID_REQUEST", message);
  }
}
