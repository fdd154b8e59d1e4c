#!/usr/bin/env bash
# Makes a local image standing in for a public one when no image registry can be reached: a minimal
# Debian from the mirror apt already uses (debootstrap), imported with `docker import`.
#   base-image.sh node TAG       bookworm with this machine's Node.js and npm (for --build-arg BASE)
#   base-image.sh services TAG   trixie with PostgreSQL + pgvector and Redis (the scale-out test)
# The machine's CA bundle goes in too when NODE_EXTRA_CA_CERTS names one (egress through a proxy
# that re-signs TLS), so npm inside the build trusts what npm outside it trusts.
set -euo pipefail
kind="$1"
tag="$2"
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
mirror="$(grep -hoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null |
  tr -d ' ' | grep -v -- '-security' | head -1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"
root="$(mktemp -d /tmp/kbqa-docker-base.XXXXXX)"
cleanup() {
  # debootstrap mounts proc (and sys) inside the new root: unmount whatever is still there before
  # removing it, and never cross into another file system.
  { grep -o " $root/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" || true; done
  rm -rf --one-file-system "$root" || true
}
trap cleanup EXIT
changes=()
case "$kind" in
  node)
    debootstrap --variant=minbase bookworm "$root" "$mirror" >/dev/null
    node="$(command -v node)"
    cp "$(readlink -f "$node")" "$root/usr/local/bin/node"
    npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
    mkdir -p "$root/usr/local/lib/node_modules"
    cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
    ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
    ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
    # Node's headers, as the official image has them: node-gyp compiles better-sqlite3 against them
    # instead of downloading them from nodejs.org.
    mkdir -p "$root/usr/local/include"
    cp -a "$(dirname "$(dirname "$(readlink -f "$node")")")/include/node" "$root/usr/local/include/node"
    changes+=(--change 'CMD ["node"]')
    ;;
  services)
    debootstrap --variant=minbase --include=postgresql-17,postgresql-17-pgvector,redis-server \
      trixie "$root" "$mirror" >/dev/null
    ;;
  *)
    echo "unknown kind $kind" >&2
    exit 2
    ;;
esac
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  mkdir -p "$root/usr/local/share/kbqa-test"
  cp "$NODE_EXTRA_CA_CERTS" "$root/usr/local/share/kbqa-test/ca.crt"
  changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/kbqa-test/ca.crt')
fi
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
changes+=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin')
tar -C "$root" --one-file-system -c . | docker import "${changes[@]}" - "$tag" >/dev/null
echo "$tag"
