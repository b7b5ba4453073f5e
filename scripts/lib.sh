# Shared helpers for the scripts in this folder. Source it; do not run it.

# The well-known Azurite development account. It is public and only works
# against the local emulator.
AZURITE_ACCOUNT=devstoreaccount1
AZURITE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# as_root runs a command as root, with sudo when we are not root.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ensure_node_deps installs the pinned npm tools (Azurite, Playwright, axe,
# htmx, and the e2e peers MailDev and oidc-provider) into the repo's ignored
# node_modules.
ensure_node_deps() {
  if [ ! -x node_modules/.bin/azurite ] || [ ! -x node_modules/.bin/playwright ] || [ ! -x node_modules/.bin/maildev ] \
    || [ ! -d node_modules/oidc-provider ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "installing npm tools (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

# ensure_chromium installs Debian's Chromium when it is missing. Playwright's
# own browser download does not work here, so the tests use this one.
ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    log "installing chromium with apt"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
}

# ensure_cc installs a C compiler when there is none: the race detector
# (go test -race) builds with cgo.
ensure_cc() {
  if ! command -v gcc >/dev/null 2>&1; then
    log "installing gcc with apt (for go test -race)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev >/dev/null
  fi
}

# ensure_emoji_font installs Debian's colour emoji font when it is missing,
# so that screenshots show the emoji people post (reactions, chat) instead
# of empty boxes. The tests do not need it.
ensure_emoji_font() {
  if [ ! -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; then
    log "installing the emoji font with apt"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-color-emoji >/dev/null
  fi
}

# free_port prints a TCP port on 127.0.0.1 that nothing listens on. Ports
# listed in RESERVED_PORTS (space-separated) are skipped: they are taken by
# something that will listen later, such as the app under test.
RESERVED_PORTS=${RESERVED_PORTS:-}
free_port() {
  local port
  for _ in $(seq 1 50); do
    # Below the kernel's ephemeral range (32768 and up by default): a port
    # chosen there can be taken meanwhile by any outgoing connection, and
    # the server that was to listen on it then fails to bind.
    port=$((20000 + RANDOM % 12000))
    case " $RESERVED_PORTS " in *" $port "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "no free port found" >&2
  return 1
}

# wait_port waits until something listens on 127.0.0.1:$1, up to $2 seconds.
wait_port() {
  local deadline=$((SECONDS + ${2:-30}))
  until (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; do
    if [ $SECONDS -ge $deadline ]; then return 1; fi
    sleep 0.2
  done
}

# start_azurite starts Azurite on loopback, in memory, and exports
# HARMONY_AZURITE (a full connection string: the Go SDK rejects
# UseDevelopmentStorage=true) and AZURITE_PID.
start_azurite() {
  local blob table queue dir
  blob=$(free_port) table=$(free_port) queue=$(free_port)
  dir=$(mktemp -d)
  log "starting Azurite (blob :$blob, table :$table)"
  # Run from a scratch directory: Azurite may leave debug files in its cwd.
  (cd "$dir" && exec "$OLDPWD/node_modules/.bin/azurite" --inMemoryPersistence --silent \
    --blobHost 127.0.0.1 --blobPort "$blob" --tableHost 127.0.0.1 --tablePort "$table" \
    --queueHost 127.0.0.1 --queuePort "$queue" --skipApiVersionCheck >"$dir/azurite.log" 2>&1) &
  AZURITE_PID=$!
  if ! wait_port "$blob" 60 || ! wait_port "$table" 60; then
    cat "$dir/azurite.log" >&2
    echo "Azurite did not start" >&2
    return 1
  fi
  export AZURITE_PID
  export HARMONY_AZURITE="DefaultEndpointsProtocol=http;AccountName=$AZURITE_ACCOUNT;AccountKey=$AZURITE_KEY;BlobEndpoint=http://127.0.0.1:$blob/$AZURITE_ACCOUNT;TableEndpoint=http://127.0.0.1:$table/$AZURITE_ACCOUNT;"
}

# start_maildev starts MailDev on loopback: an SMTP server that keeps every
# message it gets, and its REST API (GET /email lists them). It exports
# MAILDEV_PID, E2E_SMTP_URL (for the app's SMTP_URL) and E2E_MAILDEV_API
# (the web port's base URL, for the tests).
start_maildev() {
  local smtp web dir
  smtp=$(free_port) || return 1
  RESERVED_PORTS="$RESERVED_PORTS $smtp"
  web=$(free_port) || return 1
  RESERVED_PORTS="$RESERVED_PORTS $web"
  dir=$(mktemp -d)
  log "starting MailDev (smtp :$smtp, api :$web)"
  (cd "$dir" && exec "$OLDPWD/node_modules/.bin/maildev" --ip 127.0.0.1 --smtp "$smtp" \
    --web-ip 127.0.0.1 --web "$web" --mail-directory "$dir/mail" --silent >"$dir/maildev.log" 2>&1) &
  MAILDEV_PID=$!
  export MAILDEV_PID
  if ! wait_port "$smtp" 30 || ! wait_port "$web" 30 || ! curl -fsS "http://127.0.0.1:$web/healthz" >/dev/null; then
    cat "$dir/maildev.log" >&2
    echo "MailDev did not start" >&2
    return 1
  fi
  export E2E_SMTP_URL="smtp://127.0.0.1:$smtp"
  export E2E_MAILDEV_API="http://127.0.0.1:$web"
}

# start_oidc starts the test OpenID Connect provider (e2e/peers/oidc.mjs,
# oidc-provider) on loopback, with one client whose redirect URI is the
# app's callback on port $1 (the app must use BASE_URL http://127.0.0.1:$1).
# It exports OIDC_PID, E2E_OIDC_ISSUER, E2E_OIDC_CLIENT_ID and
# E2E_OIDC_CLIENT_SECRET; the provider's log is in $E2E_OIDC_LOG.
start_oidc() {
  local app_port=$1 port dir
  port=$(free_port) || return 1
  RESERVED_PORTS="$RESERVED_PORTS $port"
  dir=$(mktemp -d)
  export E2E_OIDC_ISSUER="http://127.0.0.1:$port"
  export E2E_OIDC_CLIENT_ID=harmony-e2e
  export E2E_OIDC_CLIENT_SECRET="e2e-$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  export E2E_OIDC_LOG="$dir/oidc.log"
  log "starting the OIDC provider ($E2E_OIDC_ISSUER)"
  OIDC_PORT=$port OIDC_REDIRECT_URI="http://127.0.0.1:$app_port/auth/oidc/callback" \
    OIDC_CLIENT_ID=$E2E_OIDC_CLIENT_ID OIDC_CLIENT_SECRET=$E2E_OIDC_CLIENT_SECRET \
    node e2e/peers/oidc.mjs >"$E2E_OIDC_LOG" 2>&1 &
  OIDC_PID=$!
  export OIDC_PID
  if ! wait_port "$port" 30 || ! curl -fsS "$E2E_OIDC_ISSUER/.well-known/openid-configuration" >/dev/null; then
    cat "$E2E_OIDC_LOG" >&2
    echo "the OIDC provider did not start" >&2
    return 1
  fi
}
