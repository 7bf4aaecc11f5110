#!/bin/sh
# Builds the agentx-action binary exactly as the Docker image does: a static
# binary (CGO_ENABLED=0), trimmed paths, no symbol tables. The Dockerfile's
# build stage runs this script, so the image can be reproduced without Docker:
#   cmd/agentx-action/build.sh bin/agentx-action
# An optional second argument sets the version stamped into the binary.
set -eu
out=${1:-bin/agentx-action}
version=${2:-dev}
cd "$(dirname "$0")/../.."
CGO_ENABLED=0 go build -trimpath \
  -ldflags "-s -w -X github.com/agentx-dev/agentx/internal/actioncmd.Version=${version}" \
  -o "$out" ./cmd/agentx-action
