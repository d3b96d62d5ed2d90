#!/usr/bin/env bash
# Installs what the Java vector runner (runners/java) needs to build and test, from Debian only:
# a JDK (javac), org.json (libandroid-json-java: Android's own implementation of the org.json API)
# and JUnit 4 (junit4, with its hamcrest). Idempotent: does nothing when everything is there.
# Installs only as root (a developer machine as root, or CI); otherwise prints what is missing and
# exits 3, so the caller can skip loudly (locally) or fail (CI=true).
set -euo pipefail

JSON_JAR=/usr/share/java/com.android.json.jar
JUNIT_JAR=/usr/share/java/junit4.jar
HAMCREST_JAR=/usr/share/java/hamcrest-core.jar

missing=()
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
[ -f "$JSON_JAR" ] || missing+=(libandroid-json-java)
[ -f "$JUNIT_JAR" ] || missing+=(junit4)
[ -f "$HAMCREST_JAR" ] || missing+=(libhamcrest-java)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "java-deps: missing Debian packages: ${missing[*]} (run as root: apt-get install -y ${missing[*]})" >&2
  exit 3
fi

echo "java-deps: installing ${missing[*]} with apt-get, as root (CETP_SIM_SKIP_JAVA=1 skips the Java runners instead)" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  apt-get update >/dev/null 2>&1 || true
  if ! apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
    echo "java-deps: apt-get install ${missing[*]} failed" >&2
    exit 3
  fi
fi
