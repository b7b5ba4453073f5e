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
# htmx) into the repo's ignored node_modules.
ensure_node_deps() {
  if [ ! -x node_modules/.bin/azurite ] || [ ! -x node_modules/.bin/playwright ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
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

# free_port prints a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 20000))
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
