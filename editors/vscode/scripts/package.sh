#!/usr/bin/env bash
# Builds platform-specific .vsix files of the Segue extension, each with the `segue` server binary
# bundled as server/segue (server/segue.exe on Windows), and checks their contents.
#
# Usage: scripts/package.sh [--target TARGET]... [--binary PATH] [--out DIR] [--all] [--no-server] [--no-strip]
#
#   --target T    a VS Code target: linux-x64, linux-arm64, linux-armhf, alpine-x64, alpine-arm64,
#                 darwin-x64, darwin-arm64, win32-x64, win32-arm64 (default: this machine's)
#   --binary P    the server binary to bundle (only with one --target). Default: for this
#                 machine's target, target/release/segue of the repository; for another, the
#                 cross build target/<rust triple>/release/segue
#   --all         every target whose cross build exists under target/<rust triple>/release/
#   --no-server   one universal .vsix without a server (it then uses segue.server.path or PATH)
#   --no-strip    bundle the binary as is (by default a copy is stripped of debug info when
#                 `strip` can handle it)
#   --out DIR     where the .vsix files go (default: editors/vscode/)
#
# Output: DIR/segue-TARGET-VERSION.vsix (or segue-VERSION.vsix with --no-server).
set -euo pipefail
ext="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
repo="$(cd "$ext/../.." && pwd)"
caller="$PWD"
# PATH as given, taken from the folder the script was called from (it runs in editors/vscode).
absolute() { case "$1" in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }
cd "$ext"

targets=() binary="" out="$ext" all=0 no_server=0 strip_bin=1
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=("$2"); shift 2 ;;
    --binary) binary="$(absolute "$2")"; shift 2 ;;
    --out) out="$(absolute "$2")"; shift 2 ;;
    --all) all=1; shift ;;
    --no-server) no_server=1; shift ;;
    --no-strip) strip_bin=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "package.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

triple_of() {
  case "$1" in
    linux-x64) echo x86_64-unknown-linux-gnu ;;
    linux-arm64) echo aarch64-unknown-linux-gnu ;;
    linux-armhf) echo armv7-unknown-linux-gnueabihf ;;
    alpine-x64) echo x86_64-unknown-linux-musl ;;
    alpine-arm64) echo aarch64-unknown-linux-musl ;;
    darwin-x64) echo x86_64-apple-darwin ;;
    darwin-arm64) echo aarch64-apple-darwin ;;
    win32-x64) echo x86_64-pc-windows-msvc ;;
    win32-arm64) echo aarch64-pc-windows-msvc ;;
    *) echo "package.sh: unknown target $1" >&2; return 2 ;;
  esac
}

host_target() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux; if [ -f /etc/alpine-release ]; then os=alpine; fi ;;
    Darwin) os=darwin ;;
    MINGW*|MSYS*|CYGWIN*) os=win32 ;;
    *) echo "package.sh: unsupported OS $(uname -s)" >&2; return 2 ;;
  esac
  case "$(uname -m)" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    armv7l) arch=armhf ;;
    *) echo "package.sh: unsupported architecture $(uname -m)" >&2; return 2 ;;
  esac
  echo "$os-$arch"
}

# Dependencies: npm ci when package-lock.json changed since the last install.
lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f node_modules/.segue-lock-sha256 ] || [ "$(cat node_modules/.segue-lock-sha256)" != "$lock_sum" ]; then
  echo "package.sh: npm ci"
  npm ci --no-audit --no-fund
  echo "$lock_sum" > node_modules/.segue-lock-sha256
fi

host="$(host_target)"
if [ "$all" = 1 ]; then
  for t in linux-x64 linux-arm64 linux-armhf alpine-x64 alpine-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64; do
    exe=segue; case "$t" in win32-*) exe=segue.exe ;; esac
    if [ -f "$repo/target/$(triple_of "$t")/release/$exe" ] || { [ "$t" = "$host" ] && [ -f "$repo/target/release/segue" ]; }; then
      targets+=("$t")
    fi
  done
  [ ${#targets[@]} -gt 0 ] || { echo "package.sh: --all found no release binaries under target/" >&2; exit 2; }
fi
if [ "$no_server" = 0 ] && [ ${#targets[@]} -eq 0 ]; then targets=("$host"); fi
if [ -n "$binary" ] && [ ${#targets[@]} -gt 1 ]; then
  echo "package.sh: --binary goes with a single --target" >&2; exit 2
fi

version="$(node -p 'require("./package.json").version')"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# The contributed settings must match the schema of the server (run with a binary that runs
# here: the bundled one for this machine's target, else the repository's build or PATH).
check_settings() {
  local rc=0
  SEGUE_BIN="${1:-}" node scripts/gen-settings.mjs --check || rc=$?
  case "$rc" in
    0) ;;
    2) echo "package.sh: warning: no server binary runs here; settings not checked against the schema" >&2 ;;
    *) exit 1 ;;
  esac
}

trap 'rm -rf "$ext/server"' EXIT

vsce() { node "$ext/node_modules/@vscode/vsce/vsce" "$@"; }

if [ "$no_server" = 1 ]; then
  check_settings ""
  rm -rf server
  file="$out/segue-$version.vsix"
  vsce package --no-dependencies --skip-license --out "$file"
  node scripts/check-vsix.mjs "$file" --no-server
  echo "package.sh: built $file"
  exit 0
fi

for t in "${targets[@]}"; do
  triple="$(triple_of "$t")"
  exe=segue; case "$t" in win32-*) exe=segue.exe ;; esac
  src="$binary"
  if [ -z "$src" ]; then
    if [ -f "$repo/target/$triple/release/$exe" ]; then src="$repo/target/$triple/release/$exe"
    elif [ "$t" = "$host" ] && [ -f "$repo/target/release/$exe" ]; then src="$repo/target/release/$exe"
    else
      echo "package.sh: no server binary for $t: build it (cargo build --release -p segue$([ "$t" = "$host" ] || echo " --target $triple")) or pass --binary" >&2
      exit 2
    fi
  fi
  [ -f "$src" ] || { echo "package.sh: $src does not exist" >&2; exit 2; }
  if [ "$t" = "$host" ]; then check_settings "$src"; else check_settings ""; fi
  rm -rf server && mkdir server
  cp "$src" "server/$exe"
  chmod 755 "server/$exe"
  if [ "$strip_bin" = 1 ] && [ "$t" = "$host" ] && command -v strip >/dev/null; then
    strip --strip-debug "server/$exe" 2>/dev/null || strip -S "server/$exe" 2>/dev/null || true
  fi
  file="$out/segue-$t-$version.vsix"
  echo "package.sh: $t with $src ($(du -h "server/$exe" | cut -f1) bundled)"
  vsce package --target "$t" --no-dependencies --skip-license --out "$file"
  node scripts/check-vsix.mjs "$file" --target "$t"
  echo "package.sh: built $file"
done
