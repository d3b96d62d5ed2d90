package com.example.alerts;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Negotiated sessions (spec §2.2), held in memory on purpose: a provider process that restarts
 * forgets them, and its callers negotiate again (NEGOTIATION_REQUIRED, retryable).
 */
public final class Sessions {
  public static final long TTL_MS = 3_600_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** One caller's session: its UID, the capabilities both sides support, its expiry. */
  public static final class Session {
    public final String token;
    public final int uid;
    public final List<String> capabilities;
    public final long expiresAtMs;

    Session(String token, int uid, List<String> capabilities, long expiresAtMs) {
      this.token = token;
      this.uid = uid;
      this.capabilities = capabilities;
      this.expiresAtMs = expiresAtMs;
    }

    public boolean has(String capability) {
      return capabilities.contains(capability);
    }
  }

  private final Map<String, Session> byToken = new ConcurrentHashMap<>();

  public Session open(int uid, List<String> capabilities) {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    String token = "s1." + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    Session s = new Session(token, uid, capabilities, ProviderClock.now() + TTL_MS);
    byToken.put(token, s);
    return s;
  }

  /** The caller's live session for token, or null (unknown, expired, or another UID's). */
  public Session check(String token, int uid) {
    Session s = token == null ? null : byToken.get(token);
    if (s == null || s.uid != uid) return null;
    if (ProviderClock.now() >= s.expiresAtMs) {
      byToken.remove(token);
      return null;
    }
    return s;
  }
}
