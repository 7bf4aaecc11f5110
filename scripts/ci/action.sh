#!/usr/bin/env bash
# CI step: the Action's Docker image, built from the project's Dockerfile and
# run the way GitHub's runner runs a Docker action, against the in-repo fake
# GitHub (cmd/agentx-action-imagecheck): sync, ingest, monitor and digest end
# to end, then the image's size and start time.
#
# Registries cannot be reached here, so the Dockerfile's two bases (build
# arguments defaulting to the release's pinned digests) are assembled
# locally and loaded with `docker import`:
#   - agentx-ci/build-base: busybox (Debian's busybox-static) for the shell
#     and dirname build.sh needs, the machine's Go toolchain (/usr/local/go,
#     without its tests and docs) and a module cache holding exactly this
#     module's dependencies, with GOPROXY=off: `go mod download` in the
#     Dockerfile is then offline, as the golang base is online;
#   - agentx-ci/runtime-base: what distroless/static holds that the binary
#     uses: CA certificates, tzdata, /etc/passwd and group, /tmp.
# The daemon is Debian's docker.io, started here with its own data root,
# socket and pidfile (vfs storage, no bridge, no iptables: nothing on the
# host changes), and stopped at the end unless it was already running.
#
# Installs (once, idempotent): docker.io (dockerd, containerd, runc and a
# client that matches the daemon) and busybox-static, from Debian.
# Wall time on the 2-core machine with seven other engineers' work running
# (load 26-75): cold (packages installed, empty data root: the bases, and
# a full compile in the build stage) 325 s; warm (bases and the Go build
# cache mount kept in AGENTX_CI_DOCKER_DIR, a Go file changed) 59-75 s.
# docs/PERFORMANCE.md, issue 38.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/go/bin:$PATH"
t0=$SECONDS

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
[ -x /bin/busybox ] || need+=(busybox-static)
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing ${need[*]} from Debian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Debian's client, not another on PATH: the same API version as its daemon.
docker() { /usr/bin/docker "$@"; }

state=${AGENTX_CI_DOCKER_DIR:-/var/lib/agentx-ci-docker}
run=/run/agentx-ci-docker # short: containerd's socket paths have a length limit
export DOCKER_HOST="unix://$run.sock"
mkdir -p "$state"
started=""
stop_daemon() {
  if [ -n "$started" ] && [ -s "$run.pid" ]; then
    local pid
    pid=$(cat "$run.pid")
    kill "$pid" 2>/dev/null || true
    # dockerd removes its pidfile when it has stopped its containerd.
    for _ in $(seq 100); do [ -e "$run.pid" ] || break; sleep 0.1; done
  fi
}
trap stop_daemon EXIT
if docker version >/dev/null 2>&1; then
  echo "dockerd: already running on $DOCKER_HOST"
else
  dockerd --data-root "$state/root" --exec-root "$run" --pidfile "$run.pid" \
    -H "$DOCKER_HOST" --storage-driver=vfs --bridge=none --iptables=false --ip6tables=false \
    >"$state/dockerd.log" 2>&1 &
  started=1
  for _ in $(seq 300); do docker version >/dev/null 2>&1 && break; sleep 0.1; done
  docker version >/dev/null 2>&1 || { tail -20 "$state/dockerd.log"; echo "dockerd did not start"; exit 1; }
  echo "dockerd: started in $((SECONDS - t0)) s"
fi

go mod download
gover=$(go env GOVERSION)
# The bases are rebuilt when what they are made of changes: the Go
# version, go.sum (the module cache's contents), the recipe below (bump
# recipe when changing it).
recipe=2
key=$( (echo "$gover $recipe"; cat go.sum) | sha256sum | cut -c1-12)
build_base=agentx-ci/build-base:$key
runtime_base=agentx-ci/runtime-base:$key
if ! docker image inspect "$build_base" >/dev/null 2>&1; then
  tb=$SECONDS
  root=$(mktemp -d)
  mkdir -p "$root/bin" "$root/usr/local" "$root/tmp" "$root/go/pkg/mod" "$root/etc/ssl/certs" "$root/root"
  chmod 1777 "$root/tmp"
  cp /bin/busybox "$root/bin/busybox"
  for tool in sh dirname mkdir cat ls env; do ln -s busybox "$root/bin/$tool"; done
  tar -C /usr/local --exclude=go/test --exclude=go/api --exclude=go/doc --exclude=go/misc \
    --exclude='testdata' -cf - go | tar -C "$root/usr/local" -xf -
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
  # root's home is /root, as in the golang image: the Go build cache is
  # then /root/.cache/go-build, where the Dockerfile's cache mount is.
  printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
  printf 'root:x:0:\n' >"$root/etc/group"
  # Exactly this module's dependencies, from the machine's module cache
  # (the file:// proxy reads nothing from the network).
  proxy="file://$(go env GOMODCACHE)/cache/download"
  GOMODCACHE="$root/go/pkg/mod" GOPROXY="$proxy" GOFLAGS=-modcacherw go mod download
  tar -C "$root" -cf - . | docker import \
    -c 'ENV PATH=/usr/local/go/bin:/go/bin:/bin' -c 'ENV GOPATH=/go' -c 'ENV GOPROXY=off' \
    -c 'ENV GOTOOLCHAIN=local' -c 'ENV GOFLAGS=-modcacherw' -c 'WORKDIR /go' - "$build_base" >/dev/null
  rm -rf "$root"
  echo "build base $build_base: $((SECONDS - tb)) s"
fi
if ! docker image inspect "$runtime_base" >/dev/null 2>&1; then
  tb=$SECONDS
  root=$(mktemp -d)
  mkdir -p "$root/etc/ssl/certs" "$root/usr/share" "$root/tmp" "$root/root" "$root/home/nonroot"
  chmod 1777 "$root/tmp"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
  cp -r /usr/share/zoneinfo "$root/usr/share/"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' >"$root/etc/group"
  tar -C "$root" -cf - . | docker import - "$runtime_base" >/dev/null
  rm -rf "$root"
  echo "runtime base $runtime_base: $((SECONDS - tb)) s"
fi

tb=$SECONDS
image=agentx-ci/action:dev
DOCKER_BUILDKIT=1 docker build -q --network none -t "$image" \
  --build-arg BUILD_BASE="$build_base" --build-arg RUNTIME_BASE="$runtime_base" . >/dev/null
echo "image $image: built in $((SECONDS - tb)) s"

go run ./cmd/agentx-action-imagecheck --docker /usr/bin/docker --image "$image" --starts 3

# Keep the data root bounded: vfs stores every layer whole, so each build
# leaves about 2 GB of layer cache (15 GB after a dozen builds). Superseded
# images and bases go, and all layer cache; the Go build cache mount
# (exec.cachemount, about 160 MB) stays, which is what keeps the next
# build warm.
docker image prune -f >/dev/null
docker images --format '{{.Repository}}:{{.Tag}}' | grep -E '^agentx-ci/(build|runtime)-base:' |
  grep -v ":$key\$" | xargs -r /usr/bin/docker rmi >/dev/null || true
docker builder prune -f --filter type=regular >/dev/null
echo "action image step: $((SECONDS - t0)) s (data root $(du -sh "$state/root" | cut -f1))"
