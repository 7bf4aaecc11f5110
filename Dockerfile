# agentx-action: the GitHub Action's image (action.yml: runs.using docker).
#
# Build stage: a static binary, built by the same script CI and users run
# outside Docker (cmd/agentx-action/build.sh: CGO_ENABLED=0, -trimpath,
# -ldflags "-s -w"), so the image is reproducible without a Docker engine.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN sh cmd/agentx-action/build.sh /out/agentx-action "$VERSION"

# Final stage: distroless static (CA certificates, no shell). It runs as
# root because the runner mounts GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and the
# workspace owned by root into the container.
FROM gcr.io/distroless/static-debian12
COPY --from=build /out/agentx-action /agentx-action
USER root
ENTRYPOINT ["/agentx-action"]
