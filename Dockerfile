# agentx-action: the GitHub Action's image (action.yml: runs.using docker).
#
# Base images are pinned by digest (a tag moves; the digest is what was
# reviewed). Each digest is a multi-platform index, so linux/amd64 and
# linux/arm64 resolve from the same line. Bump with
# `docker buildx imagetools inspect golang:1.26-bookworm` and
# `... gcr.io/distroless/static-debian12` (its only root tag is latest,
# which is why no tag stands beside that digest);
# internal/actioncmd/dockerfile_test.go checks the pins.
#
# The two bases are build arguments whose defaults are those pins, so the
# release (and a runner building `image: Dockerfile`) builds on exactly
# them, while CI, which cannot reach a registry, builds this same file on
# bases it assembles from the machine's Go toolchain and Debian's files
# (scripts/ci/action.sh): --build-arg BUILD_BASE=... RUNTIME_BASE=....
# An ARG before the first FROM is visible only to FROM lines.
ARG BUILD_BASE=golang:1.26-bookworm@sha256:b305420a68d0f229d91eb3b3ed9e519fcf2cf5461da4bef997bf927e8c0bfd2b
ARG RUNTIME_BASE=gcr.io/distroless/static-debian12@sha256:d75cdd72874d4790092fcb1b058493ecf6bb5bf2b2b897045b00ff01d91843f2

# Build stage: a static binary, built by the same script CI and users run
# outside Docker (cmd/agentx-action/build.sh: CGO_ENABLED=0, -trimpath,
# -ldflags "-s -w"), so the image is reproducible without a Docker engine.
# It runs on the build machine's platform and cross-compiles for the
# target's (TARGETOS/TARGETARCH, set by BuildKit), so the release's arm64
# image is not compiled under emulation.
FROM --platform=$BUILDPLATFORM ${BUILD_BASE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG TARGETOS
ARG TARGETARCH
# The Go build cache is a BuildKit cache mount: it outlives the layer that
# `COPY . .` invalidates at every change, so a rebuild compiles only the
# packages that changed (CI: 200 s cold, seconds warm; docs/PERFORMANCE.md).
RUN --mount=type=cache,target=/root/.cache/go-build \
    GOOS=$TARGETOS GOARCH=$TARGETARCH sh cmd/agentx-action/build.sh /out/agentx-action "$VERSION"

# Final stage: distroless static (CA certificates, no shell).
#
# It runs as the image's default user, root, deliberately, and sets no
# USER: GitHub's documentation for Docker actions says to run as the
# default Docker user (root) and not to use USER. The runner mounts the
# workspace (/github/workspace) and the files behind GITHUB_OUTPUT and
# GITHUB_STEP_SUMMARY (/github/file_commands) into the container owned
# by its own user (uid 1001 on GitHub-hosted runners), not by root: the
# container's root can write them whatever uid owns them, where
# distroless's nonroot (65532) could write none of them. (This tag of
# distroless, not :nonroot, has root as its default user.)
FROM ${RUNTIME_BASE}
COPY --from=build /out/agentx-action /agentx-action
ENTRYPOINT ["/agentx-action"]
