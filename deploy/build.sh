#!/usr/bin/env bash
# Builds static binaries of basalt, basalt-privacy and basalt-signer into
# dist/bin, and with --image the OCI image from deploy/image/Containerfile.
#
#   deploy/build.sh                 static binaries in dist/bin
#   deploy/build.sh --image [TAG]   and the image basalt:TAG (podman, else
#                                   docker; TAG defaults to the version)
#
# The version is stamped as in a `go build` of a checkout (the commit,
# +dirty for local changes); VERSION=v1.2.0 overrides it for a release.
# cgo stays on (libsecp256k1 and zstd come as C source) and everything is
# linked statically, so the programs run in an image FROM scratch.
set -euo pipefail
cd "$(dirname "$0")/.."

out=dist
ldflags="-s -w -linkmode external -extldflags -static"
if [ -n "${VERSION:-}" ]; then
  ldflags="$ldflags -X github.com/basaltchain/basalt/internal/version.override=$VERSION"
fi
mkdir -p "$out/bin"
CGO_ENABLED=1 go build -buildvcs=auto -tags osusergo,netgo -ldflags "$ldflags" -o "$out/bin/" \
  ./cmd/basalt ./cmd/basalt-privacy ./cmd/basalt-signer
version=$("$out/bin/basalt" --version | cut -d/ -f2)
echo "built $out/bin/{basalt,basalt-privacy,basalt-signer} $version"

[ "${1:-}" = "--image" ] || exit 0
tag=${2:-$(echo "$version" | tr '+' '-')}

# The image's context: the binaries, the CA bundle (the signer talks TLS to
# Vault) and the files of deploy/image/rootfs (passwd, group, nsswitch).
ctx="$out/image"
rm -rf "$ctx" && mkdir -p "$ctx/etc/ssl/certs" "$ctx/data" "$ctx/tmp"
chmod 1777 "$ctx/tmp"
cp "$out"/bin/basalt "$out"/bin/basalt-privacy "$out"/bin/basalt-signer "$ctx/"
ca=/etc/ssl/certs/ca-certificates.crt
[ -f "$ca" ] || { echo "no CA bundle at $ca: install Debian's ca-certificates" >&2; exit 1; }
cp "$ca" "$ctx/etc/ssl/certs/ca-certificates.crt"
cp -R deploy/image/rootfs/etc/. "$ctx/etc/"
if command -v podman >/dev/null; then
  tool=(podman build)
elif command -v docker >/dev/null; then
  tool=(docker build)
else
  echo "neither podman nor docker found" >&2; exit 1
fi
"${tool[@]}" --build-arg "VERSION=$version" -f deploy/image/Containerfile -t "basalt:$tag" "$ctx"
echo "image basalt:$tag"
